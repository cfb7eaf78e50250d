// JSON API response (about 45 KB): a product catalog grouped by category
const catalog = JSON.parse(catalogo);
const groups = new Map();
for (const p of catalog.products) {
  if (!p.active) continue;
  const g = groups.get(p.category) || { category: p.category, count: 0, sum: 0, inStock: 0, cheapest: null };
  g.count++;
  g.sum += p.price;
  if (p.stock > 0) g.inStock++;
  if (!g.cheapest || p.price < g.cheapest.price) g.cheapest = { sku: p.sku, name: p.name, price: p.price };
  groups.set(p.category, g);
}
const out = [...groups.values()].map((g) => ({ category: g.category, count: g.count, avg: Math.round((g.sum / g.count) * 100) / 100, inStock: g.inStock, cheapest: g.cheapest }));
out.sort((a, b) => a.category.localeCompare(b.category));
return JSON.stringify(out);
