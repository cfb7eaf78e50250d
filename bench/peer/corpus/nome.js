// small formatting: a name in title case, Portuguese particles kept lower case
const small = new Set(["da", "de", "do", "das", "dos", "e"]);
return String(nome).trim().toLowerCase().split(/\s+/)
  .map((w, i) => (i > 0 && small.has(w) ? w : w.charAt(0).toUpperCase() + w.slice(1)))
  .join(" ");
