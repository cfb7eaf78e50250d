// The seed's cpf example. Try it:
//   go run ./cmd/flowscript run --input cpf=123.456.789-09 examples/cpf.js
function execute(cpf) {
  const digits = digitos(cpf)
  return valido(digits) ? 'valido' : 'invalido'
}

function digitos(valor) {
  return String(valor).replace(/\D/g, '')
}

function valido(digits) {
  return digits.length === 11
}
