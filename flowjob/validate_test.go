package flowjob

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// validJob is a job every rule accepts; tests break one rule at a time.
func validJob() *Job {
	return &Job{
		ID:        "job-01HZX_a",
		SessionID: "session-1",
		FlowID:    "flow-1",
		BlockID:   "block-7",
		Context:   ContextFlow,
		Action: ExecuteScriptAction{
			Type:           ActionTypeExecuteScript,
			Source:         "function execute(nome) { return nome.toUpperCase() }",
			InputVariables: []InputVariable{{Name: "nome", Value: "{{contact.name}}"}},
			OutputVariable: "nomeMaiusculo",
			OnError:        OnErrorBlocking,
		},
		Variables: map[string]string{"contact.name": "Ana"},
	}
}

func ptr[T any](v T) *T { return &v }

func fieldErrors(t *testing.T, err error) []FieldError {
	t.Helper()
	if err == nil {
		return nil
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v (%T) is not a *ValidationError", err, err)
	}
	return ve.Errors
}

func TestValidateAcceptsValidJobs(t *testing.T) {
	for name, mutate := range map[string]func(*Job){
		"as built":                          func(*Job) {},
		"explicit version 1":                func(j *Job) { j.Version = 1 },
		"tool context":                      func(j *Job) { j.Context = ContextTool },
		"continue":                          func(j *Job) { j.Action.OnError = OnErrorContinue; j.Action.ErrorVariable = "erro" },
		"no inputs (nil)":                   func(j *Job) { j.Action.InputVariables = nil },
		"no inputs (empty)":                 func(j *Job) { j.Action.InputVariables = []InputVariable{} },
		"no variables":                      func(j *Job) { j.Variables = nil },
		"unicode input name":                func(j *Job) { j.Action.InputVariables[0].Name = "ação" },
		"dollar and underscore names":       func(j *Job) { j.Action.InputVariables = []InputVariable{{"$a", ""}, {"_b", ""}} },
		"empty input value":                 func(j *Job) { j.Action.InputVariables[0].Value = "" },
		"timeout":                           func(j *Job) { j.TimeoutMs = 500 },
		"handoff true explicit":             func(j *Job) { j.Action.ErrorHandoff = ptr(true) },
		"redirect with exception block":     func(j *Job) { j.Action.ErrorHandoff = ptr(false); j.DefaultExceptionBlockID = "exc" },
		"handoff false in a tool, no block": func(j *Job) { j.Context = ContextTool; j.Action.ErrorHandoff = ptr(false) },
		"handoff false with continue":       func(j *Job) { j.Action.OnError = OnErrorContinue; j.Action.ErrorHandoff = ptr(false) },
		"id at its cap":                     func(j *Job) { j.ID = strings.Repeat("a", MaxIDBytes) },
		"source at its cap":                 func(j *Job) { j.Action.Source = strings.Repeat("x", MaxSourceBytes) },
		"error message at its cap":          func(j *Job) { j.Action.ErrorMessage = strings.Repeat("é", MaxErrorMessageBytes/2) },
		"same output and error variable":    func(j *Job) { j.Action.ErrorVariable = j.Action.OutputVariable },
		"input names that are globals":      func(j *Job) { j.Action.InputVariables = []InputVariable{{"Math", ""}, {"JSON", ""}} },
	} {
		t.Run(name, func(t *testing.T) {
			j := validJob()
			mutate(j)
			if err := j.Validate(); err != nil {
				t.Fatalf("Validate() = %v, want nil", err)
			}
		})
	}
}

func TestValidateRules(t *testing.T) {
	big := strings.Repeat("x", 600<<10)
	for _, tc := range []struct {
		name   string
		mutate func(*Job)
		field  string
		msg    string // a part of the message
	}{
		{"negative version", func(j *Job) { j.Version = -1 }, "version", "must be 1 or more"},
		{"deadline at +24:00", func(j *Job) {
			d := time.Date(2030, 1, 2, 0, 0, 0, 0, time.FixedZone("", 24*3600))
			j.Deadline = &d
		}, "deadline", "offsets run from -23:59 to +23:59"},
		{"future version", func(j *Job) { j.Version = ContractVersion + 1 }, "version", "newer than this one"},
		{"resolution too deep", func(j *Job) {
			deep := strings.Repeat("[", MaxResolutionNesting+1) + strings.Repeat("]", MaxResolutionNesting+1)
			j.Resume = &Resume{Token: "t", Resolution: json.RawMessage(deep)}
		}, "resume.resolution", "more than 500 levels deep"},
		{"missing id", func(j *Job) { j.ID = "" }, "id", "required"},
		{"id with a dot", func(j *Job) { j.ID = "a.b" }, "id", `got "a.b"`},
		{"id with a wildcard", func(j *Job) { j.ID = "a>" }, "id", "must contain only"},
		{"id with a space", func(j *Job) { j.ID = "a b" }, "id", "must contain only"},
		{"id with a non-ASCII letter", func(j *Job) { j.ID = "açaí" }, "id", "must contain only"},
		{"id too long", func(j *Job) { j.ID = strings.Repeat("a", MaxIDBytes+1) }, "id", "over the 128-byte limit"},
		{"missing sessionId", func(j *Job) { j.SessionID = "" }, "sessionId", "required"},
		{"sessionId too long", func(j *Job) { j.SessionID = strings.Repeat("s", MaxRefBytes+1) }, "sessionId", "over the 256-byte limit"},
		{"blank sessionId", func(j *Job) { j.SessionID = " " }, "sessionId", `is only white space, got " ": send the id`},
		{"missing flowId", func(j *Job) { j.FlowID = "" }, "flowId", "required"},
		{"blank flowId", func(j *Job) { j.FlowID = "\t" }, "flowId", "is only white space"},
		{"blank blockId", func(j *Job) { j.BlockID = "\u3000" }, "blockId", "is only white space"},
		{"blank tenantId", func(j *Job) { j.TenantID = "  " }, "tenantId", "or leave the field out"},
		{"missing blockId", func(j *Job) { j.BlockID = "" }, "blockId", "required"},
		{"missing context", func(j *Job) { j.Context = "" }, "context", `required: "flow" or "tool"`},
		{"unknown context", func(j *Job) { j.Context = "agent" }, "context", `got "agent"`},
		{"missing type", func(j *Job) { j.Action.Type = "" }, "action.type", "required"},
		{"unknown type", func(j *Job) { j.Action.Type = "executeScrip" }, "action.type", `must be "executeScript", got "executeScrip"`},
		{"type in another case", func(j *Job) { j.Action.Type = "ExecuteScript" }, "action.type", "must be"},
		{"empty source", func(j *Job) { j.Action.Source = "" }, "action.source", "required"},
		{"blank source", func(j *Job) { j.Action.Source = " \n\t" }, "action.source", "required"},
		{"source too large", func(j *Job) { j.Action.Source = strings.Repeat("x", MaxSourceBytes+1) }, "action.source", "over the 262144-byte limit"},
		{"empty input name", func(j *Job) { j.Action.InputVariables[0].Name = "" }, "action.inputVariables[0].name", "must not be empty"},
		{"input name starting with a digit", func(j *Job) { j.Action.InputVariables[0].Name = "2x" }, "action.inputVariables[0].name", "must start with"},
		{"input name with a dash", func(j *Job) { j.Action.InputVariables[0].Name = "a-b" }, "action.inputVariables[0].name", "not a JavaScript identifier"},
		{"dotted input name", func(j *Job) { j.Action.InputVariables[0].Name = "contact.name" }, "action.inputVariables[0].name", "not a JavaScript identifier"},
		{"reserved input name", func(j *Job) { j.Action.InputVariables[0].Name = "class" }, "action.inputVariables[0].name", "reserved"},
		{"input named execute", func(j *Job) { j.Action.InputVariables[0].Name = "execute" }, "action.inputVariables[0].name", "reserved"},
		{"input named eval", func(j *Job) { j.Action.InputVariables[0].Name = "eval" }, "action.inputVariables[0].name", "reserved"},
		{"duplicate input names", func(j *Job) {
			j.Action.InputVariables = []InputVariable{{"a", ""}, {"cpf", ""}, {"cpf", ""}}
		}, "action.inputVariables[2].name", `"cpf" is already the name of action.inputVariables[1]`},
		{"input name too long", func(j *Job) { j.Action.InputVariables[0].Name = strings.Repeat("a", MaxInputNameBytes+1) }, "action.inputVariables[0].name", "at most 128 bytes"},
		{"too many inputs", func(j *Job) {
			j.Action.InputVariables = make([]InputVariable, MaxInputVariables+1)
		}, "action.inputVariables", "has 129 inputs, over the limit of 128"},
		{"interpolated inputs too large", func(j *Job) {
			j.Variables = map[string]string{"big": big}
			j.Action.InputVariables = []InputVariable{{"a", "{{big}}"}, {"b", "{{ big }}"}}
		}, "action.inputVariables", "from inputVariables[1] on"},
		{"template bomb", func(j *Job) {
			j.Variables = map[string]string{"v": strings.Repeat("x", 64<<10)}
			j.Action.InputVariables = []InputVariable{{"a", strings.Repeat("{{v}}", 1000)}}
		}, "action.inputVariables", "interpolated inputs exceed 1048576 bytes"},
		{"missing outputVariable", func(j *Job) { j.Action.OutputVariable = "" }, "action.outputVariable", "required"},
		{"blank outputVariable", func(j *Job) { j.Action.OutputVariable = " \n" }, "action.outputVariable", "is only white space"},
		{"blank errorVariable", func(j *Job) { j.Action.ErrorVariable = " " }, "action.errorVariable", "name the session variable"},
		{"outputVariable too long", func(j *Job) { j.Action.OutputVariable = strings.Repeat("o", MaxNameBytes+1) }, "action.outputVariable", "over the 256-byte limit"},
		{"errorVariable too long", func(j *Job) { j.Action.ErrorVariable = strings.Repeat("e", MaxNameBytes+1) }, "action.errorVariable", "over the 256-byte limit"},
		{"missing onError", func(j *Job) { j.Action.OnError = "" }, "action.onError", "required"},
		{"unknown onError", func(j *Job) { j.Action.OnError = "ignore" }, "action.onError", `got "ignore"`},
		{"errorMessage too long", func(j *Job) { j.Action.ErrorMessage = strings.Repeat("m", MaxErrorMessageBytes+1) }, "action.errorMessage", "over the 4096-byte limit"},
		{"redirect without exception block", func(j *Job) { j.Action.ErrorHandoff = ptr(false) }, "defaultExceptionBlockId", "required when"},
		{"exception block too long", func(j *Job) { j.DefaultExceptionBlockID = strings.Repeat("b", MaxRefBytes+1) }, "defaultExceptionBlockId", "over the 256-byte limit"},
		{"negative timeout", func(j *Job) { j.TimeoutMs = -1 }, "timeoutMs", "got -1"},
		{"empty variable name", func(j *Job) { j.Variables[""] = "x" }, `variables[""]`, "must not be empty"},
		{"variable name too long", func(j *Job) { j.Variables[strings.Repeat("v", MaxNameBytes+1)] = "x" }, `variables["vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"…]`, "over the 256-byte limit"},
		{"too many variables", func(j *Job) {
			for i := range MaxVariables {
				j.Variables[fmt.Sprint("v", i)] = ""
			}
		}, "variables", "has 4097 variables, over the limit of 4096"},
		{"variables too large", func(j *Job) {
			j.Variables["a"], j.Variables["b"] = big, big
		}, "variables", "over the 1048576-byte limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob()
			tc.mutate(j)
			got := fieldErrors(t, j.Validate())
			if len(got) != 1 || got[0].Field != tc.field || !strings.Contains(got[0].Message, tc.msg) {
				t.Fatalf("Validate() = %q\nwant exactly one error on %s containing %q", got, tc.field, tc.msg)
			}
		})
	}
}

func TestValidateCollectsEveryProblem(t *testing.T) {
	err := (&Job{}).Validate()
	var fields []string
	for _, fe := range fieldErrors(t, err) {
		fields = append(fields, fe.Field)
	}
	want := []string{"id", "sessionId", "flowId", "blockId", "context", "action.type", "action.source", "action.outputVariable", "action.onError"}
	if !slices.Equal(fields, want) {
		t.Fatalf("fields = %q, want %q", fields, want)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "invalid job: id: required") || strings.Count(msg, "; ") != len(want)-1 {
		t.Fatalf("Error() = %q: want every problem listed after \"invalid job: \"", msg)
	}

	j := validJob()
	j.Context = "agent"
	j.Action.InputVariables = []InputVariable{{"ok", ""}, {"1bad", ""}, {"ok", ""}}
	j.Action.OnError = "maybe"
	j.TimeoutMs = -5
	fields = fields[:0]
	for _, fe := range fieldErrors(t, j.Validate()) {
		fields = append(fields, fe.Field)
	}
	want = []string{"context", "action.inputVariables[1].name", "action.inputVariables[2].name", "action.onError", "timeoutMs"}
	if !slices.Equal(fields, want) {
		t.Fatalf("fields = %q, want %q", fields, want)
	}
}

func TestValidateCapsTheList(t *testing.T) {
	j := validJob()
	j.Action.InputVariables = make([]InputVariable, 100)
	for i := range j.Action.InputVariables {
		j.Action.InputVariables[i].Name = "1"
	}
	got := fieldErrors(t, j.Validate())
	if len(got) != MaxFieldErrors+1 {
		t.Fatalf("got %d errors, want %d (the cap and a summary)", len(got), MaxFieldErrors+1)
	}
	if last := got[len(got)-1]; last.Field != "" || last.Message != "50 more problems not listed" {
		t.Fatalf("last = %+v, want the summary of the 50 unlisted problems", last)
	}
}

func TestValidateNilJob(t *testing.T) {
	var j *Job
	if got := fieldErrors(t, j.Validate()); len(got) != 1 || got[0].Message != "job is missing" {
		t.Fatalf("nil job: %q", got)
	}
}

func TestValidationErrorHas(t *testing.T) {
	ve := &ValidationError{Errors: []FieldError{
		{Field: "action.inputVariables[1].name", Message: "x"},
		{Field: "variables.a", Message: "y"},
	}}
	for field, want := range map[string]bool{
		"action": true, "action.inputVariables": true, "action.inputVariables[1]": true,
		"action.inputVariables[1].name": true, "action.inputVariables[1].value": false,
		"action.input": false, "action.onError": false, "variables": true, "variables.ab": false, "id": false,
	} {
		if got := ve.Has(field); got != want {
			t.Errorf("Has(%q) = %v, want %v", field, got, want)
		}
	}
	whole := &ValidationError{Errors: []FieldError{{Message: "not valid JSON"}}}
	if !whole.Has("id") {
		t.Error("a whole-document problem must make Has true for every field")
	}
}

// TestHasPastTheCap checks that the problems past MaxFieldErrors name
// their fields for Has: 100 bad input names leave the ids usable, through
// Validate and through Decode, and an unlisted problem of the whole
// document still makes every field suspect.
func TestHasPastTheCap(t *testing.T) {
	j := validJob()
	j.Action.InputVariables = make([]InputVariable, 100)
	for i := range j.Action.InputVariables {
		j.Action.InputVariables[i].Name = "1"
	}
	j.Action.OnError = "later" // a problem of another field, past the cap
	data, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	_, decodeErr := Decode(data)
	for name, err := range map[string]error{"Validate": j.Validate(), "Decode": decodeErr} {
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("%s: %v, want a *ValidationError", name, err)
		}
		for field, want := range map[string]bool{
			"id": false, "sessionId": false, "context": false, "action.source": false, "action": true,
			"action.inputVariables": true, "action.inputVariables[80].name": true, "action.onError": true,
		} {
			if got := ve.Has(field); got != want {
				t.Errorf("%s: Has(%q) = %v, want %v", name, field, got, want)
			}
		}
	}

	var p problems
	for range MaxFieldErrors {
		p.add("action.inputVariables[0].name", "x")
	}
	p.add("", "a problem of the whole document")
	var ve *ValidationError
	if !errors.As(p.err(), &ve) || !ve.Has("id") {
		t.Error("an unlisted problem of the whole document must make Has true for every field")
	}
	var many problems
	for i := range MaxFieldErrors + maxUnlistedFields + 1 {
		many.add(fmt.Sprintf("unknown%d", i), "unknown field")
	}
	if !errors.As(many.err(), &ve) || !ve.Has("id") {
		t.Error("past maxUnlistedFields fields, Has must be true for every field")
	}
}

func TestFieldHead(t *testing.T) {
	for path, want := range map[string]string{
		"id": "id", "variables.a.b": "variables", "action": "action", "action.source": "action.source",
		"action.inputVariables[3].name": "action.inputVariables", "action.capabilities[0]": "action.capabilities",
		"inputs[2]": "inputs", "action[0]": "action",
	} {
		if got := fieldHead(path); got != want {
			t.Errorf("fieldHead(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"a": true, "01HZX-abc_9": true, strings.Repeat("z", MaxIDBytes): true,
		"": false, "a.b": false, "*": false, ">": false, "a b": false, "a\x00": false, "ñ": false,
		strings.Repeat("z", MaxIDBytes+1): false,
	} {
		if got := ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestTemplateParts(t *testing.T) {
	type part = TemplatePart
	for _, tc := range []struct {
		in   string
		want []part
	}{
		{"", nil},
		{"plain", []part{{"plain", false}}},
		{"{{a}}", []part{{"a", true}}},
		{"Olá {{ contact.name }}!", []part{{"Olá ", false}, {"contact.name", true}, {"!", false}}},
		{"{{\ta\n}}", []part{{"a", true}}},
		{"{{a}}{{b}}", []part{{"a", true}, {"b", true}}},
		{"{{", []part{{"{{", false}}},
		{"}}", []part{{"}}", false}}},
		{"{{ }}", []part{{"{{ }}", false}}},
		{"{{}}", []part{{"{{}}", false}}},
		{"{{a b}}", []part{{"{{a b}}", false}}},
		{"{{a}", []part{{"{{a}", false}}},
		{"{a}}", []part{{"{a}}", false}}},
		{"{{{a}}}", []part{{"{", false}, {"a", true}, {"}", false}}},
		{"{{{{a}}}}", []part{{"{{", false}, {"a", true}, {"}}", false}}},
		{"{{a{{b}}", []part{{"{{a", false}, {"b", true}}},
		{"x {{ a }} y {{", []part{{"x ", false}, {"a", true}, {" y {{", false}}},
		{"{{ação}}", []part{{"ação", true}}},
	} {
		var got []part
		for p := range TemplateParts(tc.in) {
			got = append(got, p)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("TemplateParts(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestInterpolatedLenStopsPastLimit(t *testing.T) {
	vars := map[string]string{"v": strings.Repeat("x", 1000)}
	if got := interpolatedLen("ab{{v}}{{missing}}", vars, 1<<20); got != 1002 {
		t.Fatalf("interpolatedLen = %d, want 1002", got)
	}
	if got := interpolatedLen(strings.Repeat("{{v}}", 1e6), vars, 5000); got <= 5000 || got > 6000 {
		t.Fatalf("interpolatedLen = %d, want it to stop just past the limit 5000", got)
	}
}

// TestResolutionAtTheNestingCap: a resolution as deep as the sandbox's
// JSON.parse reads is valid.
func TestResolutionAtTheNestingCap(t *testing.T) {
	j := validJob()
	deep := `{"a":` + strings.Repeat("[", MaxResolutionNesting-1) + `"[[{"` + strings.Repeat("]", MaxResolutionNesting-1) + "}"
	j.Resume = &Resume{Token: "t", Resolution: json.RawMessage(deep)}
	if err := j.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestJSONNesting(t *testing.T) {
	for text, want := range map[string]int{
		`true`:                     0,
		`"[[["`:                    0,
		`[1, {"a": [2]}]`:          3,
		`{"a": "\"[[", "b": [[]]}`: 3,
		`["\\", [[]]]`:             3,
		`[[], [], []]`:             2,
	} {
		if got := JSONNesting([]byte(text)); got != want {
			t.Errorf("JSONNesting(%s) = %d, want %d", text, got, want)
		}
	}
}
