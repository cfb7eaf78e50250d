package goja

import "math"

// FlowScript patch 91: Number.prototype.toString with a radix other than
// 10 writes V8's digits. Upstream ran SpiderMonkey's conversion, which
// differs in the last digits of a fraction ((0.3).toString(36) ended in r,
// Node's in p) and writes every digit of an integer past 2^53 where V8
// writes zeros for the digits a double does not hold ((1e21).toString(36)).
//
// radixString follows V8's DoubleToRadixCString: the fraction's digits are
// written while they are above the double's precision (half the distance
// to the next double, scaled with them), the last rounded half to even
// with a carry back through the digits written; the integer's digits come
// from repeated division, zeros first while the quotient is past 2^53.
// x is finite and not negative.
func radixString(x float64, radix int) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	integer := math.Floor(x)
	fraction := x - integer
	delta := max(0.5*(math.Nextafter(x, math.Inf(1))-x), math.SmallestNonzeroFloat64)
	var frac []byte
	if fraction >= delta {
		frac = append(frac, '.')
		for {
			// Explicit conversions: no multiplication is fused with the
			// subtraction or the addition after it (Go fuses on arm64).
			fraction = float64(fraction * float64(radix))
			delta = float64(delta * float64(radix))
			digit := int(fraction)
			frac = append(frac, digits[digit])
			fraction -= float64(digit)
			if (fraction > 0.5 || fraction == 0.5 && digit&1 == 1) && fraction+delta > 1 {
				// Round up, carrying back through the digits written.
				for {
					last := len(frac) - 1
					if last == 0 { // the point: carry into the integer
						integer++
						break
					}
					c := frac[last]
					d := int(c - '0')
					if c > '9' {
						d = int(c-'a') + 10
					}
					if d+1 < radix {
						frac[last] = digits[d+1]
						break
					}
					frac = frac[:last]
				}
				break
			}
			if fraction < delta {
				break
			}
		}
		if len(frac) == 1 { // every digit carried away
			frac = frac[:0]
		}
	}
	var rev []byte // the integer's digits, last first
	for integer/float64(radix) >= 1<<53 {
		integer /= float64(radix)
		rev = append(rev, '0')
	}
	for {
		remainder := math.Mod(integer, float64(radix))
		rev = append(rev, digits[int(remainder)])
		if integer = (integer - remainder) / float64(radix); integer <= 0 {
			break
		}
	}
	out := make([]byte, 0, len(rev)+len(frac))
	for i := len(rev) - 1; i >= 0; i-- {
		out = append(out, rev[i])
	}
	return string(append(out, frac...))
}
