package main

import (
	"embed"
	"fmt"
	"math/rand/v2"
	"strings"
)

//go:embed corpus/*.js
var corpusFS embed.FS

// entry is one script of the corpus with its input.
type entry struct {
	name, kind string
	inputName  string
	input      string
}

// corpus returns the scripts in the order the table prints them. Inputs are
// generated from a fixed seed, so every run measures the same work.
func corpus() []entry {
	return []entry{
		{"cpf", "small", "cpf", "123.456.789-09"},
		{"phone", "small", "telefone", "(11) 98765-4321"},
		{"nome", "small", "nome", "  maria DA silva dos santos "},
		{"email", "small", "email", " Joao.Silva+promo@Example.COM.br "},
		{"orders_json", "json", "resposta", ordersResponse(40)},
		{"catalog_json", "json", "catalogo", catalogResponse(150)},
		{"regex_extract", "regex", "conversa", conversation(40)},
		{"fib", "compute", "n", "20"},
	}
}

func (e entry) source() string {
	b, err := corpusFS.ReadFile("corpus/" + e.name + ".js")
	if err != nil {
		panic(err) // embedded: a missing file is a bug of this program
	}
	return string(b)
}

// ordersResponse is a page of n orders from an e-commerce API.
func ordersResponse(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	fmt.Fprintf(&b, `{"page":1,"pageSize":%d,"total":%d,"items":[`, n, n)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		c := r.IntN(12)
		fmt.Fprintf(&b, `{"id":"ord-%06d","createdAt":"2026-11-%02dT%02d:%02d:00Z","status":%q,"customer":{"id":%d,"name":"Cliente %d","email":"cliente%d@example.com","vip":%t},"total":%.2f,"currency":"BRL","items":[`,
			100000+i, 1+r.IntN(28), r.IntN(24), r.IntN(60), []string{"paid", "paid", "pending", "cancelled"}[r.IntN(4)], c, c, c, c%5 == 0, 10+r.Float64()*490)
		for j := range 1 + r.IntN(3) {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"sku":"SKU-%04d","qty":%d,"price":%.2f}`, r.IntN(10000), 1+r.IntN(4), 5+r.Float64()*200)
		}
		fmt.Fprintf(&b, `],"shipping":{"method":"sedex","cep":"%05d-%03d"},"notes":null}`, r.IntN(100000), r.IntN(1000))
	}
	b.WriteString("]}")
	return b.String()
}

// catalogResponse is a product catalog of n products.
func catalogResponse(n int) string {
	r := rand.New(rand.NewPCG(3, 4))
	cats := []string{"eletrônicos", "livros", "casa", "esporte", "moda", "brinquedos", "beleza", "mercado"}
	var b strings.Builder
	b.WriteString(`{"version":3,"products":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"sku":"P%05d","name":"Produto %d modelo %c","category":%q,"price":%.2f,"stock":%d,"active":%t,"tags":["promo","frete-grátis","novo"],"rating":{"avg":%.1f,"count":%d},"dimensions":{"w":%d,"h":%d,"d":%d}}`,
			i, i, 'A'+rune(r.IntN(26)), cats[r.IntN(len(cats))], 5+r.Float64()*995, r.IntN(50)-5, r.IntN(10) > 0, 1+r.Float64()*4, r.IntN(5000), r.IntN(100), r.IntN(100), r.IntN(100))
	}
	b.WriteString("]}")
	return b.String()
}

// conversation is a support chat transcript of n messages.
func conversation(n int) string {
	r := rand.New(rand.NewPCG(5, 6))
	lines := []string{
		"Olá, meu pedido #%d ainda não chegou, comprei em %02d/%02d/2026.",
		"Pode me ligar no (11) 9%04d-%04d? Ou escreva para cliente%d@example.com.",
		"O número do order %d aparece como entregue mas não recebi nada aqui.",
		"Meu CPF é %03d.%03d.%03d-%02d, confirma o cadastro por favor.",
		"Atendente: verificamos o pedido %d, a transportadora informou atraso de %d dias.",
		"Se não resolverem vou cancelar e abrir reclamação, isso é urgente, prazo %02d/%02d/2026.",
	}
	var b strings.Builder
	for i := range n {
		l := lines[i%len(lines)]
		switch i % len(lines) {
		case 0:
			fmt.Fprintf(&b, l, 1000000+r.IntN(9000000), 1+r.IntN(28), 1+r.IntN(12))
		case 1:
			fmt.Fprintf(&b, l, r.IntN(10000), r.IntN(10000), r.IntN(50))
		case 2:
			fmt.Fprintf(&b, l, 1000000+r.IntN(9000000))
		case 3:
			fmt.Fprintf(&b, l, r.IntN(1000), r.IntN(1000), r.IntN(1000), r.IntN(100))
		case 4:
			fmt.Fprintf(&b, l, 1000000+r.IntN(9000000), 1+r.IntN(9))
		case 5:
			fmt.Fprintf(&b, l, 1+r.IntN(28), 1+r.IntN(12))
		}
		b.WriteString(" Obrigado pela atenção, aguardo retorno o quanto antes possível.\n")
	}
	return b.String()
}
