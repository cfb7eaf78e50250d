package sessionkv_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/flowscript/flowscript/internal/capabilities/sessionkv"
)

func ExampleNewMemory() {
	ctx := context.Background()
	store := sessionkv.NewMemory(sessionkv.Config{MaxKeysPerScope: 1})
	maria := sessionkv.Scope{Tenant: "acme", Session: "whatsapp:5511999990000"}

	_ = store.Set(ctx, maria, "cart", json.RawMessage(`{"items":2}`), 0)
	v, found, _ := store.Get(ctx, maria, "cart")
	fmt.Println(string(v), found)

	_, found, _ = store.Get(ctx, sessionkv.Scope{Tenant: "acme", Session: "another"}, "cart")
	fmt.Println("another session sees it:", found)

	err := store.Set(ctx, maria, "second", json.RawMessage(`1`), 0)
	var limit *sessionkv.LimitError
	if errors.As(err, &limit) {
		fmt.Println(limit.Env)
	}
	// Output:
	// {"items":2} true
	// another session sees it: false
	// KV_MAX_KEYS
}
