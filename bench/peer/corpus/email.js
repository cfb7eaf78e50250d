// small validation: an e-mail address, normalized, with its domain checked
const e = String(email).trim().toLowerCase();
const m = /^([a-z0-9._%+-]+)@([a-z0-9-]+(?:\.[a-z0-9-]+)+)$/.exec(e);
if (!m) return JSON.stringify({ valid: false });
const blocked = ["mailinator.com", "tempmail.com"];
return JSON.stringify({ valid: !blocked.includes(m[2]), user: m[1].split("+")[0], domain: m[2] });
