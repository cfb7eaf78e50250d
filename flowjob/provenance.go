package flowjob

import (
	"crypto/sha256"
	"encoding/hex"
)

// SourceSHA256 is the SHA-256 of a script source as a failed result
// carries it (Result.SourceSHA256): 64 lowercase hex digits of the
// source's UTF-8 bytes, exactly as the job carried them.
func SourceSHA256(source string) string {
	sum := sha256.Sum256([]byte(source))
	return hex.EncodeToString(sum[:])
}
