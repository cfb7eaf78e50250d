package goja

import "math"

// FlowScript patch 92: Math.pow and ** compute as V8 does, with fdlibm's
// __ieee754_pow (V8's base::ieee754::pow), so a script's numbers are
// Node's to the last digit. Upstream used Go's math.Pow, which multiplies
// its way through an integer exponent: (1 + 0.01) ** 360 was off in its
// 15th digit, and 1,912 of 2,000 compound-interest powers differed from
// Node's; 10 ** -5 was 0.00001 where Node writes 0.000009999999999999999.

// The constants of fdlibm's e_pow.c.
const (
	powTwo53 = 9007199254740992.0
	powL1    = 5.99999999999994648725e-01
	powL2    = 4.28571428578550184252e-01
	powL3    = 3.33333329818377432918e-01
	powL4    = 2.72728123808534006489e-01
	powL5    = 2.30660745775561754067e-01
	powL6    = 2.06975017800338417784e-01
	powP1    = 1.66666666666666019037e-01
	powP2    = -2.77777777770155933842e-03
	powP3    = 6.61375632143793436117e-05
	powP4    = -1.65339022054652515390e-06
	powP5    = 4.13813679705723846039e-08
	powLg2   = 6.93147180559945286227e-01
	powLg2H  = 6.93147182464599609375e-01
	powLg2L  = -1.90465429995776804525e-09
	powOvt   = 8.0085662595372944372e-17
	powCp    = 9.61796693925975554329e-01
	powCpH   = 9.61796700954437255859e-01
	powCpL   = -7.02846165095275826516e-09
	powIvln2 = 1.44269504088896338700e+00
	powIvH   = 1.44269502162933349609e+00
	powIvL   = 1.92596299112661746887e-08
)

var (
	powHuge = 1.0e300 // variables: their squares over- and underflow at run time
	powTiny = 1.0e-300
	powBp   = [2]float64{1.0, 1.5}
	powDpH  = [2]float64{0.0, 5.84962487220764160156e-01}
	powDpL  = [2]float64{0.0, 1.35003920212974897128e-08}
)

// hi32 and lo32 are the high and low words of x; withLo32 and withHi32
// are x with one of them replaced.
func hi32(x float64) int32  { return int32(math.Float64bits(x) >> 32) }
func lo32(x float64) uint32 { return uint32(math.Float64bits(x)) }
func withLo32(x float64, lo uint32) float64 {
	return math.Float64frombits(math.Float64bits(x)&^0xffffffff | uint64(lo))
}
func withHi32(x float64, hi int32) float64 {
	return math.Float64frombits(uint64(uint32(hi))<<32 | math.Float64bits(x)&0xffffffff)
}

// fdlibmPow is x**y as fdlibm computes it (see the patch's comment); the
// caller has taken the cases where JavaScript differs from C (a y of NaN
// or ±Infinity with |x| = 1). Every product is converted to float64
// explicitly: Go may otherwise fuse a multiplication and an addition into
// one rounding (it does on arm64), and fdlibm counts on each step's.
func fdlibmPow(x, y float64) float64 {
	hx, lx := hi32(x), lo32(x)
	hy, ly := hi32(y), lo32(y)
	ix, iy := hx&0x7fffffff, hy&0x7fffffff

	if iy|int32(ly) == 0 { // y is ±0
		return 1
	}
	if ix > 0x7ff00000 || ix == 0x7ff00000 && lx != 0 || iy > 0x7ff00000 || iy == 0x7ff00000 && ly != 0 {
		return x + y // a NaN
	}

	// yisint: 0 y is not an integer, 1 an odd one, 2 an even one (for x < 0).
	yisint := 0
	if hx < 0 {
		if iy >= 0x43400000 {
			yisint = 2
		} else if iy >= 0x3ff00000 {
			k := (iy >> 20) - 0x3ff
			if k > 20 {
				j := ly >> uint(52-k)
				if j<<uint(52-k) == ly {
					yisint = 2 - int(j&1)
				}
			} else if ly == 0 {
				j := iy >> uint(20-k)
				if j<<uint(20-k) == iy {
					yisint = 2 - int(j&1)
				}
			}
		}
	}

	if ly == 0 {
		if iy == 0x7ff00000 { // y is ±Infinity
			switch {
			case (ix-0x3ff00000)|int32(lx) == 0:
				return math.NaN() // (±1)**±Infinity
			case ix >= 0x3ff00000: // |x| > 1
				if hy >= 0 {
					return y
				}
				return 0
			default: // |x| < 1
				if hy < 0 {
					return -y
				}
				return 0
			}
		}
		if iy == 0x3ff00000 { // y is ±1
			if hy < 0 {
				return 1 / x
			}
			return x
		}
		if hy == 0x40000000 { // y is 2
			return x * x
		}
		if hy == 0x3fe00000 && hx >= 0 { // y is 0.5, x ≥ +0
			return math.Sqrt(x)
		}
	}

	ax := math.Abs(x)
	if lx == 0 && (ix == 0x7ff00000 || ix == 0 || ix == 0x3ff00000) { // x is ±0, ±Infinity, ±1
		z := ax
		if hy < 0 {
			z = 1 / z
		}
		if hx < 0 {
			if (ix-0x3ff00000)|int32(yisint) == 0 {
				z = math.NaN() // (-1)**non-integer
			} else if yisint == 1 {
				z = -z
			}
		}
		return z
	}

	n := int32(uint32(hx)>>31) ^ 1 // 0 when x < 0, as fdlibm's (hx>>31)+1
	if n|int32(yisint) == 0 {
		return math.NaN() // (x < 0)**non-integer
	}
	s := 1.0 // the sign of the result
	if n|int32(yisint-1) == 0 {
		s = -1 // (x < 0)**odd integer
	}

	var t1, t2 float64
	if iy > 0x41e00000 { // |y| > 2**31
		if iy > 0x43f00000 { // |y| > 2**64: over- or underflow
			if ix <= 0x3fefffff {
				if hy < 0 {
					return powHuge * powHuge
				}
				return powTiny * powTiny
			}
			if ix >= 0x3ff00000 {
				if hy > 0 {
					return powHuge * powHuge
				}
				return powTiny * powTiny
			}
		}
		// Over- or underflow if x is not close to one.
		if ix < 0x3fefffff {
			if hy < 0 {
				return s * powHuge * powHuge
			}
			return s * powTiny * powTiny
		}
		if ix > 0x3ff00000 {
			if hy > 0 {
				return s * powHuge * powHuge
			}
			return s * powTiny * powTiny
		}
		// |1-x| ≤ 2**-20: log(x) is x - x²/2 + x³/3 - x⁴/4.
		t := ax - 1
		w := float64(float64(t*t) * (0.5 - float64(t*(0.3333333333333333333333-float64(t*0.25)))))
		u := float64(powIvH * t)
		v := float64(t*powIvL) - float64(w*powIvln2)
		t1 = withLo32(u+v, 0)
		t2 = v - (t1 - u)
	} else {
		n = 0
		if ix < 0x00100000 { // subnormal x
			ax *= powTwo53
			n -= 53
			ix = hi32(ax)
		}
		n += (ix >> 20) - 0x3ff
		j := ix & 0x000fffff
		ix = j | 0x3ff00000 // normalized
		var k int
		switch {
		case j <= 0x3988E: // |x| < sqrt(3/2)
			k = 0
		case j < 0xBB67A: // |x| < sqrt(3)
			k = 1
		default:
			k = 0
			n++
			ix -= 0x00100000
		}
		ax = withHi32(ax, ix)

		// ss = s_h + s_l = (x-1)/(x+1) or (x-1.5)/(x+1.5)
		u := ax - powBp[k]
		v := 1 / (ax + powBp[k])
		ss := float64(u * v)
		sh := withLo32(ss, 0)
		th := withHi32(0, ((ix>>1)|0x20000000)+0x00080000+int32(k<<18))
		tl := ax - (th - powBp[k])
		sl := float64(v * ((u - float64(sh*th)) - float64(sh*tl)))
		// log(ax)
		s2 := float64(ss * ss)
		r := float64(float64(s2*s2) * (powL1 + float64(s2*(powL2+float64(s2*(powL3+float64(s2*(powL4+float64(s2*(powL5+float64(s2*powL6)))))))))))
		r += float64(sl * (sh + ss))
		s2 = float64(sh * sh)
		th = withLo32(3.0+s2+r, 0)
		tl = r - ((th - 3.0) - s2)
		// u + v = ss*(1+...)
		u = float64(sh * th)
		v = float64(sl*th) + float64(tl*ss)
		// 2/(3log2)*(ss+...)
		ph := withLo32(u+v, 0)
		pl := v - (ph - u)
		zh := float64(powCpH * ph)
		zl := float64(powCpL*ph) + float64(pl*powCp) + powDpL[k]
		// log2(ax) = (ss+..)*2/(3*log2) = n + dp_h + z_h + z_l
		t := float64(n)
		t1 = withLo32(((zh+zl)+powDpH[k])+t, 0)
		t2 = zl - (((t1 - t) - powDpH[k]) - zh)
	}

	// (y1+y2)*(t1+t2), y split in two
	y1 := withLo32(y, 0)
	pl := float64((y-y1)*t1) + float64(y*t2)
	ph := float64(y1 * t1)
	z := pl + ph
	j := hi32(z)
	i := int32(lo32(z))
	if j >= 0x40900000 { // z ≥ 1024
		if (j-0x40900000)|i != 0 || pl+powOvt > z-ph {
			return s * powHuge * powHuge // overflow
		}
	} else if j&0x7fffffff >= 0x4090cc00 { // z ≤ -1075
		if int32(uint32(j)-0xc090cc00)|i != 0 || pl <= z-ph {
			return s * powTiny * powTiny // underflow
		}
	}

	// 2**(ph+pl)
	i = j & 0x7fffffff
	k := (i >> 20) - 0x3ff
	n = 0
	if i > 0x3fe00000 { // |z| > 0.5: n = [z+0.5]
		n = j + (0x00100000 >> uint(k+1))
		k = ((n & 0x7fffffff) >> 20) - 0x3ff
		t := withHi32(0, n&^(0x000fffff>>uint(k)))
		n = ((n & 0x000fffff) | 0x00100000) >> uint(20-k)
		if j < 0 {
			n = -n
		}
		ph -= t
	}
	t := withLo32(pl+ph, 0)
	u := float64(t * powLg2H)
	v := float64((pl-(t-ph))*powLg2) + float64(t*powLg2L)
	z = u + v
	w := v - (z - u)
	t = float64(z * z)
	t1 = z - float64(t*(powP1+float64(t*(powP2+float64(t*(powP3+float64(t*(powP4+float64(t*powP5)))))))))
	r := float64(z*t1)/(t1-2) - (w + float64(z*w))
	z = 1 - (r - z)
	j = hi32(z) + n<<20
	if j>>20 <= 0 {
		z = math.Ldexp(z, int(n)) // subnormal result
	} else {
		z = withHi32(z, hi32(z)+n<<20)
	}
	return s * z
}
