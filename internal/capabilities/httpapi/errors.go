package httpapi

// DeniedError says the policy does not allow the call: an unknown connector,
// a tenant the connector does not serve, a method, path, query or header the
// connector refuses, or a host that resolves to a private address. Nothing
// was sent. Message is for the script's author: precise, with the next step,
// and without any secret. The integrator maps it to CAPABILITY_DENIED.
type DeniedError struct{ Message string }

func (e *DeniedError) Error() string { return e.Message }

// NetworkError is any other failure of a call: a name that does not resolve,
// a refused or reset connection, a TLS failure, a timeout before the whole
// response was read, a redirect the connector does not allow. The script may
// catch it. Message is for the script's author and holds no secret; Err is
// the cause, for the operator's logs (it may name the connector's host, never
// a secret). Timeout reports a timeout. errors.Is(err,
// context.DeadlineExceeded) (or context.Canceled) holds only when the
// caller's context ended, not at the connector's own timeout.
type NetworkError struct {
	Message string
	Timeout bool
	Err     error
}

func (e *NetworkError) Error() string { return e.Message }

func (e *NetworkError) Unwrap() error { return e.Err }
