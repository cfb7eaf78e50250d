package templatesapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Principal is who a request authenticated as: the JWT subject, or the
// index of the API key (never the key itself).
type Principal struct {
	Method  string // "jwt" or "api_key"
	Subject string
}

// authError is a refused credential; its message tells the caller what to
// fix and is safe to return.
type authError struct{ message string }

func (e *authError) Error() string { return e.message }

// Authenticator checks a request's credentials.
type Authenticator struct {
	secret  []byte
	jwks    *jwksCache
	keys    [][sha256.Size]byte
	parser  *jwt.Parser
	methods []string
}

// leeway tolerates clock skew between the token issuer and this service.
const leeway = 5 * time.Second

// NewAuthenticator builds the checks cfg configures.
func NewAuthenticator(cfg Config, client *http.Client) *Authenticator {
	a := &Authenticator{}
	if cfg.JWTSecret != "" {
		a.secret = []byte(cfg.JWTSecret)
		a.methods = append(a.methods, jwt.SigningMethodHS256.Alg())
	}
	if cfg.JWKSURL != "" {
		a.jwks = newJWKSCache(cfg.JWKSURL, client)
		a.methods = append(a.methods, jwt.SigningMethodRS256.Alg())
	}
	for _, k := range cfg.APIKeys {
		a.keys = append(a.keys, sha256.Sum256([]byte(k)))
	}
	a.parser = jwt.NewParser(jwt.WithValidMethods(a.methods), jwt.WithExpirationRequired(), jwt.WithLeeway(leeway))
	return a
}

// Authenticate returns the request's principal, or an *authError. Every
// credential presented must be valid; at least one must be presented.
func (a *Authenticator) Authenticate(r *http.Request) (Principal, error) {
	authz, hasAuthz := r.Header["Authorization"]
	key, hasKey := r.Header["X-Api-Key"]
	if !hasAuthz && !hasKey {
		return Principal{}, &authError{"authentication required: send Authorization: Bearer <token> or X-API-Key: <key>"}
	}
	var p Principal
	if hasKey {
		if len(key) != 1 {
			return Principal{}, &authError{"send one X-API-Key header, not several"}
		}
		var err error
		if p, err = a.apiKey(key[0]); err != nil {
			return Principal{}, err
		}
	}
	if hasAuthz {
		if len(authz) != 1 {
			return Principal{}, &authError{"send one Authorization header, not several"}
		}
		var err error
		if p, err = a.bearer(r.Context(), authz[0]); err != nil {
			return Principal{}, err
		}
	}
	return p, nil
}

func (a *Authenticator) apiKey(presented string) (Principal, error) {
	if len(a.keys) == 0 {
		return Principal{}, &authError{"API keys are not accepted by this service: use Authorization: Bearer <token>"}
	}
	sum := sha256.Sum256([]byte(presented))
	match := -1
	for i, k := range a.keys { // every key is compared: the time does not say which matched
		if subtle.ConstantTimeCompare(sum[:], k[:]) == 1 {
			match = i
		}
	}
	if match < 0 {
		return Principal{}, &authError{"the API key is not valid"}
	}
	return Principal{Method: "api_key", Subject: "key#" + strconv.Itoa(match+1)}, nil
}

func (a *Authenticator) bearer(ctx context.Context, header string) (Principal, error) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return Principal{}, &authError{"the Authorization header must be Bearer <token>"}
	}
	if len(a.methods) == 0 {
		return Principal{}, &authError{"bearer tokens are not accepted by this service: use X-API-Key"}
	}
	claims := jwt.RegisteredClaims{}
	_, err := a.parser.ParseWithClaims(strings.TrimSpace(token), &claims, func(t *jwt.Token) (any, error) {
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
		return Principal{}, tokenError(err)
	}
	return Principal{Method: "jwt", Subject: claims.Subject}, nil
}

// tokenError says why a token was refused, without echoing it.
func tokenError(err error) *authError {
	var kerr *keyError
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return &authError{"the token has expired: get a new one"}
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return &authError{"the token is not valid yet: check the issuer's clock"}
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return &authError{"the token has no exp claim: tokens must expire"}
	case errors.Is(err, jwt.ErrTokenMalformed):
		return &authError{"the bearer token is not a well-formed JWT"}
	case errors.As(err, &kerr):
		return &authError{"the token cannot be verified: " + kerr.Error()}
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return &authError{"the token's signature is not valid for this service"}
	}
	return &authError{"the token is not valid"}
}
