// small formatting: a phone number typed any way, in E.164 and for display
const digits = String(telefone).replace(/\D/g, "").replace(/^0+/, "");
const full = digits.length <= 11 ? "55" + digits : digits;
const ddd = full.slice(2, 4), rest = full.slice(4);
const local = rest.length === 9 ? rest.slice(0, 5) + "-" + rest.slice(5) : rest.slice(0, 4) + "-" + rest.slice(4);
return JSON.stringify({ e164: "+" + full, display: "(" + ddd + ") " + local, mobile: rest.length === 9 && rest[0] === "9" });
