// text extraction with regexes over a support conversation (about 7 KB)
const text = String(conversa);
const uniq = (xs) => [...new Set(xs)];
const emails = uniq(text.match(/[\w.+-]+@[\w-]+\.[\w.-]+/g) || []);
const orders = uniq([...text.matchAll(/(?:pedido|order)\s*#?\s*(\d{6,8})/gi)].map((m) => m[1]));
const dates = [...text.matchAll(/\b(\d{2})\/(\d{2})\/(\d{4})\b/g)].map((m) => m[3] + "-" + m[2] + "-" + m[1]);
const phones = uniq((text.match(/\(?\d{2}\)?\s?9?\d{4}-?\d{4}/g) || []).map((p) => p.replace(/\D/g, "")));
const cpfs = (text.match(/\d{3}\.\d{3}\.\d{3}-\d{2}/g) || []).length;
const urgent = /\b(urgente|cancelar|procon|reclame aqui)\b/i.test(text);
const words = text.toLowerCase().split(/[^a-zà-ú]+/).filter((w) => w.length > 6);
return JSON.stringify({ emails, orders, dates: uniq(dates).sort(), phones, cpfs, urgent, longWords: words.length });
