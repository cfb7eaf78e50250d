// small validation: a Brazilian CPF's check digits (the seed's example)
const d = String(cpf).replace(/\D/g, "");
if (d.length !== 11 || /^(\d)\1{10}$/.test(d)) return "invalido";
const digit = (len) => {
  let sum = 0;
  for (let i = 0; i < len; i++) sum += Number(d[i]) * (len + 1 - i);
  const r = (sum * 10) % 11;
  return r === 10 ? 0 : r;
};
return digit(9) === Number(d[9]) && digit(10) === Number(d[10]) ? "valido" : "invalido";
