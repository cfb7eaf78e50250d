package guardrails_test

import (
	"fmt"

	"github.com/flowscript/flowscript/internal/guardrails"
)

func ExampleCheck() {
	source := `function execute(cpf) {
  const process = (s) => s.trim() // the author's own: not a finding
  console.log(cpf)
  return process(cpf) + globalThis.fetch
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
	// 3:3 error GUARDRAIL_CONSOLE
	// 4:36 warning GUARDRAIL_GLOBALTHIS_HOST
	// refuses the save: true
}
