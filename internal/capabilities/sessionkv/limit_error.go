package sessionkv

// LimitError is a kv call over a cap or with a key the store cannot hold:
// a value too large, too many keys in the session, a key too long or not
// UTF-8, a negative ttl. It is the script's mistake; its Message is precise,
// names the limit and its environment variable, and says what to do. Any
// other error of a Store is the store's own (unreachable, timed out) and
// transient.
type LimitError struct {
	Message string
	// Env is the environment variable that sets the limit, when one does.
	Env string
}

func (e *LimitError) Error() string { return e.Message }
