package goja

import "math/big"

// FlowScript patch 126: BigInt's <<, >> and ** throw V8's RangeError for a
// result past V8's largest BigInt (maxBigIntBits) instead of asking Go for
// it: 1n << (2n ** 53n) made math/big panic, which at run time cost the job
// its memory limit and, folded as a constant at compile time, its worker;
// 2n ** (2n ** 40n) grew until the memory limit. A shift past every bit of
// the value is 0n or -1n, where a count past 2^64 was read modulo 2^64.

// errBigIntTooLarge is V8's error for a BigInt past its largest.
func (r *Runtime) errBigIntTooLarge() Value {
	return r.newError(r.getRangeError(), "Maximum BigInt size exceeded")
}

// bigIntShift is x << n (x >> -n when n is negative).
func (r *Runtime) bigIntShift(x, n *big.Int) Value {
	if x.Sign() == 0 {
		return (*valueBigInt)(new(big.Int))
	}
	if n.Sign() >= 0 {
		if !n.IsInt64() || n.Int64() > maxBigIntBits-int64(x.BitLen()) {
			panic(r.errBigIntTooLarge())
		}
		return (*valueBigInt)(new(big.Int).Lsh(x, uint(n.Int64())))
	}
	if !n.IsInt64() || -n.Int64() >= int64(x.BitLen()) || n.Int64() == -1<<63 {
		if x.Sign() < 0 {
			return (*valueBigInt)(big.NewInt(-1)) // Rsh rounds toward -∞
		}
		return (*valueBigInt)(new(big.Int))
	}
	return (*valueBigInt)(new(big.Int).Rsh(x, uint(-n.Int64())))
}

// bigIntPow is x ** y, y not negative.
func (r *Runtime) bigIntPow(x, y *big.Int) Value {
	// |x| ≥ 2 makes a result of (bits(x) - 1) * y bits at least.
	if x.BitLen() > 1 && (!y.IsInt64() || y.Int64() >= maxBigIntBits/int64(x.BitLen()-1)) {
		panic(r.errBigIntTooLarge())
	}
	return (*valueBigInt)(new(big.Int).Exp(x, y, nil))
}
