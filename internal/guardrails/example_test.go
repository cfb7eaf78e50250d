package guardrails_test

import (
	"fmt"

	"github.com/flowscript/flowscript/internal/guardrails"
)

func ExampleCheck() {
	source := `function execute(cpf) {
  const process = (s) => s.trim() // the author's own: not a finding
  console.log(cpf) // captured by the sandbox: not a finding
  return process(cpf) + globalThis.fetch + require('x')
}`
	findings, err := guardrails.Check(source, []string{"cpf"})
	if err != nil {
		fmt.Println("syntax error:", err)
		return
	}
	for _, f := range findings {
		fmt.Printf("%d:%d %s %s\n", f.Line, f.Column, f.Severity, f.Code)
	}
	fmt.Println("refuses the save:", guardrails.HasErrors(findings))
	// Output:
	// 4:36 warning GUARDRAIL_GLOBALTHIS_HOST
	// 4:44 error GUARDRAIL_REQUIRE
	// refuses the save: true
}

func ExampleScan() {
	source := `function execute(cpf) {
  const customer = api.get('crm', '/customers/' + cpf).json
  kv.set('customer', customer)
  const connector = 'billing'
  api.post(connector, '/invoices', {cpf})
  return customer.name
}`
	findings, uses, err := guardrails.Scan(source, []string{"cpf"})
	if err != nil {
		fmt.Println("syntax error:", err)
		return
	}
	fmt.Println("capabilities:", uses.Capabilities)
	fmt.Println("connectors:", uses.Connectors)
	for _, f := range findings {
		fmt.Printf("%d:%d %s %s\n", f.Line, f.Column, f.Severity, f.Code)
	}
	// Output:
	// capabilities: [api kv]
	// connectors: [crm]
	// 5:12 warning GUARDRAIL_CONNECTOR_UNKNOWN
}
