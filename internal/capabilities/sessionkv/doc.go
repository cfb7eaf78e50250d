// Package sessionkv is the store behind the kv host function (DESIGN.md §9):
// small JSON values a script keeps between the steps of one session, with
// kv.get, kv.set and kv.delete. The host function (trusted code in the
// executor) calls a Store with the job's Scope — its tenant and session —
// and the script's key; the script never names a scope.
//
// Two backends follow the same rules and pass one contract test suite
// (contract_test.go): OpenJetStream, a JetStream key-value bucket the
// executor provisions (on disk: values survive an executor or broker
// restart), and NewMemory, for the templates API's test route and
// `flowscript run`, where nothing may persist.
//
// The rules:
//
//   - Isolation. A stored key is t<tenant>.s<session>.k<key>, each part in
//     unpadded base64url: one subject token each, whatever the tenant,
//     session or key hold (dots, '*', '>', '=', unicode, nothing), so no
//     input can collide with another scope's key or widen a filter past its
//     scope. Tenant and session are at most MaxScopePartBytes each.
//   - Keys are any UTF-8 string of at most MaxKeyBytes (KV_MAX_KEY_BYTES),
//     the empty string included.
//   - Values are JSON of at most MaxValueBytes (KV_MAX_VALUE_BYTES), stored
//     and returned byte for byte.
//   - TTL. Every entry is gone at most TTL (KV_TTL, the bucket's TTL) after
//     its last write; a set's own ttl is shorter or the same (0 and larger
//     values mean the bucket's; rounded up to a millisecond). NATS 2.9 has
//     no per-message TTL, so an entry is an envelope {"e": expiry in unix
//     ms, "v": value}; an entry read at or past its expiry is absent, and
//     is deleted then (lazily: it occupies the disk until then or until the
//     bucket's TTL). The expiry is the writing executor's clock: replicas'
//     clocks are assumed to agree to well under a second (NTP).
//   - Keys per scope. Setting a key the session does not hold yet fails
//     when it holds MaxKeysPerScope (KV_MAX_KEYS) live keys. Overwriting a
//     key and deleting are always allowed and cost no count. The JetStream
//     store counts with one stream info request filtered on the scope's
//     subjects, and deletes entries by purging their subject rather than
//     with markers, so deleted keys do not count; keys past their own ttl
//     are read one by one only when the count reaches the cap. Writers of
//     one session that set new keys at the same moment do not pass the cap:
//     a writer whose key was not the bucket's next write after its count
//     counts again and, past the cap, removes its key and fails (see
//     jetStreamStore.keepWithinCap); racing for the last place, two may
//     both give way.
//
// The cost of the count (BenchmarkCountScaling, private servers, medians of
// 3): on nats-server 2.15 about 0.3 ms whatever the bucket holds; on 2.9 the
// server scans every key of the bucket, 0.3 ms empty, 1.0 ms with 2,000
// other sessions' keys, 12 ms with 20,000 (about 0.5 µs a key). Listing the
// scope with an ordered consumer (ListKeysFiltered) works on 2.9 too but
// costs more (17–19 ms with 20,000 keys). So on 2.9 a first kv.set of a
// key slows as the bucket grows: run 2.10 or later in production, as the
// README already says for the executor's streams. A new key costs a second
// count when the bucket took another write (any session's) between its
// count and its own write.
//
//   - Errors. A *LimitError is the script's mistake (over a cap, a key that
//     is not UTF-8, a negative ttl), with a message that names the limit
//     and its environment variable; every other error is the store's
//     (unreachable, timed out) and transient, or the host's (a scope part
//     too long, a value that is not JSON).
//
// The package must never let a caller address, list or count keys outside
// the scope it is given, never log or return values of another scope, and
// never keep a value past the bucket's TTL. It knows nothing of the
// sandbox, of jobs or of grants: the caller decides whether kv is granted
// and reads the environment (the variables above, and STREAM_REPLICAS for
// Replicas).
package sessionkv
