// JSON API response (about 11 KB): paid orders, revenue, top customers
const res = JSON.parse(resposta);
const paid = res.items.filter((o) => o.status === "paid");
const byCustomer = {};
let revenue = 0;
for (const o of paid) {
  revenue += o.total;
  byCustomer[o.customer.email] = (byCustomer[o.customer.email] || 0) + o.total;
}
const top = Object.entries(byCustomer).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([email, total]) => ({ email, total: Math.round(total * 100) / 100 }));
const items = paid.reduce((n, o) => n + o.items.reduce((m, i) => m + i.qty, 0), 0);
return JSON.stringify({ orders: paid.length, revenue: Math.round(revenue * 100) / 100, items, top, vip: paid.filter((o) => o.customer.vip).map((o) => o.id) });
