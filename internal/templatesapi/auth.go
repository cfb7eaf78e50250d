package templatesapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/flowscript/flowscript/internal/templates"
)

// Principal is who a request authenticated as: the JWT subject, or the
// index of the API key (never the key itself), and what it may do.
type Principal struct {
	Method  string // "jwt" or "api_key"
	Subject string
	Role    Role
	// TenantBound: the caller may run test runs and replays with host
	// functions only for Tenants (a token, with AUTH_JWT_TENANT_CLAIM).
	TenantBound bool
	Tenants     []string
}

// MayUseTenant reports whether p may run code with host functions for
// tenant (a test run's tenantId, a replayed job's).
func (p Principal) MayUseTenant(tenant string) bool {
	return !p.TenantBound || tenant != "" && slices.Contains(p.Tenants, tenant)
}

// authError is a refused credential. message is all the caller learns: it
// never says which methods are on, whether the key set is reachable, or
// echoes what was sent. reason, for the log only, says more.
type authError struct {
	message string
	reason  string
}

func (e *authError) Error() string { return e.message }

// Messages of refused credentials. Before a token's signature is verified
// the caller learns only that it cannot be verified; the claims are
// discussed only with someone holding a genuinely signed token.
const (
	msgNoCredentials = "authentication required: send Authorization: Bearer <token> or X-API-Key: <key>"
	msgBadKey        = "the API key is not valid"
	msgUnverifiable  = "the token cannot be verified: get a new one from your identity provider"
)

// Authenticator checks a request's credentials.
type Authenticator struct {
	secret      []byte
	jwks        *jwksCache
	keys        []storedKey
	parser      *jwt.Parser
	methods     []string
	scopeClaim  string
	tenantClaim string
	readScope   string
	writeScope  string
}

type storedKey struct {
	sum  [sha256.Size]byte
	role Role
}

// leeway tolerates clock skew between the token issuer and this service
// for exp, nbf and iat.
const leeway = 5 * time.Second

// NewAuthenticator builds the checks cfg configures; cfg must be valid.
// client fetches the JWKS (nil: a default client); logger receives the
// key set's fetch failures. Close stops the key set's refreshes.
func NewAuthenticator(cfg Config, client *http.Client, logger *slog.Logger) *Authenticator {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	a := &Authenticator{scopeClaim: cfg.JWTScopeClaim, tenantClaim: cfg.JWTTenantClaim, readScope: cfg.JWTReadScope, writeScope: cfg.JWTWriteScope}
	if cfg.JWTSecret != "" {
		a.secret = []byte(cfg.JWTSecret)
		a.methods = append(a.methods, jwt.SigningMethodHS256.Alg())
	}
	if cfg.JWKSURL != "" {
		a.jwks = newJWKSCache(jwksOptions{
			url: cfg.JWKSURL, client: client, log: logger,
			maxAge: cfg.JWKSMaxAge, minInterval: cfg.JWKSMinInterval,
		})
		a.methods = append(a.methods, jwt.SigningMethodRS256.Alg())
	}
	for _, entry := range cfg.APIKeys {
		k, _ := parseAPIKey(entry) // cfg is valid
		a.keys = append(a.keys, storedKey{sum: sha256.Sum256([]byte(k.key)), role: k.role})
	}
	// Strict decoding: a segment whose last base64url character differs
	// only in the bits the encoding leaves unused decodes to the same bytes
	// under the lenient decoder, so an altered token would still verify.
	// Only the encoding the issuer produced is accepted.
	opts := []jwt.ParserOption{
		jwt.WithValidMethods(a.methods), jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithLeeway(leeway),
		jwt.WithIssuer(cfg.JWTIssuer), jwt.WithStrictDecoding(),
	}
	if len(cfg.JWTAudience) > 0 {
		opts = append(opts, jwt.WithAudience(cfg.JWTAudience...))
	}
	a.parser = jwt.NewParser(opts...)
	return a
}

// Close stops the key set's refreshes and waits for a fetch in flight.
func (a *Authenticator) Close() {
	if a.jwks != nil {
		a.jwks.close()
	}
}

// JWKSStats reports the key set's fetches (zero without AUTH_JWKS_URL).
func (a *Authenticator) JWKSStats() JWKSStats {
	if a.jwks == nil {
		return JWKSStats{}
	}
	return a.jwks.stats()
}

// prefetch starts a fetch of the key set, so the first RS256 request does
// not wait for one.
func (a *Authenticator) prefetch() {
	if a.jwks != nil {
		a.jwks.refresh()
	}
}

// Authenticate returns the request's principal, or an *authError. Every
// credential presented must be valid; at least one must be presented. With
// both, the token's role applies.
func (a *Authenticator) Authenticate(r *http.Request) (Principal, error) {
	authz, hasAuthz := r.Header["Authorization"]
	key, hasKey := r.Header["X-Api-Key"]
	if !hasAuthz && !hasKey {
		return Principal{}, &authError{message: msgNoCredentials, reason: "no credentials"}
	}
	var p Principal
	if hasKey {
		if len(key) != 1 {
			return Principal{}, &authError{message: "send one X-API-Key header, not several", reason: "several API keys"}
		}
		var err error
		if p, err = a.apiKey(key[0]); err != nil {
			return Principal{}, err
		}
	}
	if hasAuthz {
		if len(authz) != 1 {
			return Principal{}, &authError{message: "send one Authorization header, not several", reason: "several Authorization headers"}
		}
		var err error
		if p, err = a.bearer(r.Context(), authz[0]); err != nil {
			return Principal{}, err
		}
	}
	return p, nil
}

func (a *Authenticator) apiKey(presented string) (Principal, error) {
	sum := sha256.Sum256([]byte(presented))
	match := -1
	for i, k := range a.keys { // every key is compared: the time does not say which matched
		if subtle.ConstantTimeCompare(sum[:], k.sum[:]) == 1 {
			match = i
		}
	}
	if match < 0 {
		reason := "unknown API key"
		if len(a.keys) == 0 {
			reason = "API key sent, but AUTH_API_KEYS is not set"
		}
		return Principal{}, &authError{message: msgBadKey, reason: reason}
	}
	return Principal{Method: "api_key", Subject: "key#" + strconv.Itoa(match+1), Role: a.keys[match].role}, nil
}

func (a *Authenticator) bearer(ctx context.Context, header string) (Principal, error) {
	scheme, token, ok := strings.Cut(header, " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return Principal{}, &authError{message: "the Authorization header must be Bearer <token>", reason: "not a bearer token"}
	}
	if len(a.methods) == 0 {
		return Principal{}, &authError{message: msgUnverifiable, reason: "bearer token sent, but no JWT method is configured"}
	}
	claims := jwt.MapClaims{}
	tok, err := a.parser.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		switch t.Method.Alg() {
		case jwt.SigningMethodHS256.Alg():
			return a.secret, nil
		case jwt.SigningMethodRS256.Alg():
			kid, _ := t.Header["kid"].(string)
			return a.jwks.key(ctx, kid)
		}
		return nil, errors.New("unexpected signing method") // WithValidMethods already refused it
	})
	if err != nil {
		return Principal{}, tokenError(err, claims)
	}
	// From here on the token is genuine: the caller may learn what is wrong
	// with it.
	if _, crit := tok.Header["crit"]; crit {
		return Principal{}, &authError{message: "the token has a crit header; this service supports no JWT extension", reason: "crit header"}
	}
	// An exp past year 9999 is a mistake (milliseconds sent as seconds, or
	// "never"): the library accepts it while it fits an int64.
	if farFuture(claims["exp"]) {
		return Principal{}, &authError{message: msgExpOutOfRange, reason: "exp past year 9999"}
	}
	// A time past year 9999 overflows the library's conversion to a time
	// in the past (nbf 1e19 passed its check): such a token is not valid yet.
	for _, name := range []string{"nbf", "iat"} {
		if v, ok := claims[name].(float64); ok && v > maxNumericDate {
			return Principal{}, &authError{message: "the token is not valid yet (nbf or iat is in the future): check the issuer's clock", reason: name + " past year 9999"}
		}
	}
	sub, err := claims.GetSubject()
	if err != nil {
		return Principal{}, tokenError(err, claims)
	}
	if !templates.HasVisible(sub) { // a blank subject (spaces, a zero-width space) names no one
		return Principal{}, &authError{message: "the token has no sub claim: tokens must name their subject", reason: "no sub"}
	}
	role, err := a.role(claims)
	if err != nil {
		return Principal{}, err
	}
	p := Principal{Method: "jwt", Subject: sub, Role: role}
	if a.tenantClaim != "" {
		p.TenantBound = true
		// An empty tenant id is an attribute left unset (identity providers
		// send one as ""): it names no tenant.
		switch v := claims[a.tenantClaim].(type) {
		case nil: // no tenant
		case string:
			if v != "" {
				p.Tenants = []string{v}
			}
		case []any:
			for _, e := range v {
				t, ok := e.(string)
				if !ok {
					return Principal{}, tenantClaimError(a.tenantClaim)
				}
				if t != "" {
					p.Tenants = append(p.Tenants, t)
				}
			}
		default:
			return Principal{}, tenantClaimError(a.tenantClaim)
		}
	}
	return p, nil
}

// maxNumericDate is 9999-12-31T23:59:59Z in seconds since the epoch.
const maxNumericDate = 253402300799

func tenantClaimError(claim string) *authError {
	return &authError{message: "the token's " + claim + " claim must be a tenant id or an array of tenant ids", reason: "bad tenant claim"}
}

func scopeClaimError(claim string) *authError {
	return &authError{message: "the token's " + claim + " claim must be a string of scopes separated by spaces or an array of scopes", reason: "bad scope claim"}
}

// role reads the scope claim: a string of scopes separated by spaces
// (OAuth 2, RFC 6749 §3.3: ASCII spaces only, so "a\u00a0templates:read" is
// one unknown scope) or an array of strings. An array holding anything but
// strings is refused, as the tenant claim's is (its role would depend on
// which elements were skipped); a claim of another type grants nothing.
func (a *Authenticator) role(claims jwt.MapClaims) (Role, error) {
	var scopes []string
	switch v := claims[a.scopeClaim].(type) {
	case string:
		scopes = strings.Split(v, " ")
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return RoleNone, scopeClaimError(a.scopeClaim)
			}
			scopes = append(scopes, s)
		}
	}
	role := RoleNone
	for _, s := range scopes {
		switch s {
		case a.writeScope:
			return RoleWrite, nil
		case a.readScope:
			role = RoleRead
		}
	}
	return role, nil
}

// farFuture says whether a numeric claim is past the year 9999: no issuer
// means such a time (most often it is milliseconds sent as seconds), and
// past 2^63 seconds jwt's parser reads it as a time in the past.
func farFuture(claim any) bool {
	f, ok := claim.(float64)
	return ok && f > maxNumericDate
}

const msgExpOutOfRange = "the token's exp claim is out of range (after the year 9999): the issuer must give exp in seconds since 1970"

// tokenError says why a token was refused, without echoing it. Claim
// problems are only reported once the signature verified (the parser
// checks claims after the signature).
func tokenError(err error, claims jwt.MapClaims) *authError {
	var kerr *keyError
	reason := err.Error()
	if errors.As(err, &kerr) {
		reason = kerr.reason
	}
	refuse := func(msg string) *authError { return &authError{message: msg, reason: reason} }
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		return refuse("the bearer token is not a well-formed JWT")
	case errors.Is(err, jwt.ErrTokenUnverifiable), errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return refuse(msgUnverifiable)
	case errors.Is(err, jwt.ErrTokenExpired) && farFuture(claims["exp"]):
		// So large a time overflows to the past when read: it is no expiry.
		return refuse(msgExpOutOfRange)
	case errors.Is(err, jwt.ErrTokenExpired):
		return refuse("the token has expired: get a new one")
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return refuse("the token is not valid yet (nbf or iat is in the future): check the issuer's clock")
	case errors.Is(err, jwt.ErrInvalidType):
		return refuse("a claim of the token has the wrong type: exp, nbf and iat must be numbers, iss and sub strings, aud a string or an array of strings")
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && claims["exp"] == 0.0:
		// The JWT library reads exp 0 as no exp; it is 1970, long past.
		return refuse("the token has expired: get a new one")
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		for _, name := range []string{"exp", "aud", "iss"} {
			if _, ok := claims[name]; !ok {
				return refuse("the token has no " + name + " claim: tokens for this service must carry exp, aud, iss and sub")
			}
		}
		return refuse("the token lacks a required claim: tokens for this service must carry exp, aud, iss and sub")
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return refuse("the token is not meant for this service: its aud is not accepted")
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return refuse("the token's issuer (iss) is not accepted by this service")
	}
	return refuse("the token is not valid")
}
