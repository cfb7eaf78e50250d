// a compute loop: naive recursive Fibonacci
function fib(k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }
return String(fib(Number(n)));
