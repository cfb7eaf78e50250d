package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/flowscript/flowscript/internal/textcut"
)

// The host's globals (DESIGN.md §9), installed in every fresh runtime after
// the lockdown and before the author's program:
//
//   - console: log, info, warn, error, debug, captured as {level, message,
//     line} within the run's caps (and Node's other methods as one of those
//     levels: consoleOrder); it reaches no host stream.
//   - capabilities: a frozen array of the granted capabilities' names.
//   - api (get, post, put, patch, delete) and kv (get, set, delete): always
//     there, so that a call of one that is not granted throws
//     CAPABILITY_DENIED at the author's line ("Api capability is not
//     enabled") instead of a ReferenceError.
//
// They are native functions on frozen objects: no JavaScript of the host
// runs in the runtime, nothing of Go is reachable through them, and a
// script that replaces JSON, Array, Object or their prototypes changes
// nothing of what they do — the arguments are serialized with the engine's
// own JSON.stringify, and the answer parsed with the sandbox's JSON.parse
// (Go functions the script cannot replace). What crosses to the host is
// JSON text; the host parses and checks it again (it never trusts the
// sandbox).

// hostState is a run's side of the host: its grants, its host, the errors
// its host calls threw (by identity, so that a script cannot forge one),
// and its console lines.
type hostState struct {
	ctx    context.Context
	host   Host
	grants []string
	thrown map[*goja.Object]*Error
	logs   logBook
	// errorCtor is the Error constructor, taken before the script ran.
	errorCtor *goja.Object
	// position maps a stack to the author's line and column.
	position func([]goja.StackFrame) (int, int)
	// console is console's counters, timers and groups.
	console consoleState
	// journal is the run's journal when it may suspend (approval granted)
	// or resumes; nil otherwise (journal.go).
	journal *recorder
	// timedOut is where the script called the host call that was still
	// pending at the deadline (answered SCRIPT_TIMEOUT): the run's timeout
	// reports that line whichever notices the deadline first, the host's
	// answer or the runtime's interrupt.
	timedOut struct{ line, column int }
}

// locate gives a timeout the line of the host call that was still pending
// at the deadline, if one was: the same error whether the script saw the
// call's SCRIPT_TIMEOUT thrown or the runtime's interrupt came first.
func (h *hostState) locate(e *Error) *Error {
	if e != nil && e.Code == CodeTimeout && e.Line == 0 && h.timedOut.line > 0 {
		e.Line, e.Column = h.timedOut.line, h.timedOut.column
	}
	return e
}

// installHost installs the host's globals in v, when the program may reach
// them (reachable, see features) or the run may suspend or resume: a
// program that can name none of them runs without their cost.
func (v *vm) installHost(h *hostState, reachable bool) error {
	rt := v.rt
	v.host = h
	if !reachable && h.journal == nil {
		return nil
	}
	h.thrown = map[*goja.Object]*Error{}
	freeze, ok := rt.Get("Object").ToObject(rt).Get("freeze").Export().(nativeFunc)
	h.errorCtor = rt.Get("Error").ToObject(rt)
	if !ok {
		return errors.New("the runtime's Object.freeze is not a native function")
	}
	object := func(methods map[string]nativeFunc, order ...string) goja.Value {
		obj := rt.NewObject()
		for _, name := range order {
			fn := rt.ToValue(methods[name]).ToObject(rt)
			_ = fn.DefineDataProperty("name", rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
			_ = obj.DefineDataProperty(name, freeze(goja.FunctionCall{Arguments: []goja.Value{fn}}),
				goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
		return freeze(goja.FunctionCall{Arguments: []goja.Value{obj}})
	}
	// Ordinary globals, as Node's console: writable and configurable, not
	// enumerable. A sloppy assignment to one of these names (a variable
	// the author forgot to declare) then replaces it for the rest of the
	// run, as in Node, instead of being dropped while the script reads the
	// host object on. The objects and their methods stay frozen, and the
	// host keeps no reference the script could replace.
	install := func(name string, value goja.Value) error {
		return rt.GlobalObject().DefineDataProperty(name, value, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}

	consoleMethods := v.consoleMethods()
	call := func(capability, method string) nativeFunc {
		return func(c goja.FunctionCall) goja.Value { return v.hostCall(capability, method, c.Arguments) }
	}
	// In one order whatever order the job asked in: a resume may ask for
	// the same grants in another, and must read the same list.
	granted := make([]any, len(h.grants))
	for i, g := range slices.Sorted(slices.Values(h.grants)) {
		granted[i] = g
	}
	for _, g := range []struct {
		name  string
		value goja.Value
	}{
		{"console", object(consoleMethods, consoleOrder...)},
		{"capabilities", freeze(goja.FunctionCall{Arguments: []goja.Value{rt.NewArray(granted...)}})},
		{"api", object(map[string]nativeFunc{
			"get": call("api", "get"), "delete": call("api", "delete"),
			"post": call("api", "post"), "put": call("api", "put"), "patch": call("api", "patch"),
		}, "get", "post", "put", "patch", "delete")},
		{"kv", object(map[string]nativeFunc{
			"get": call("kv", "get"), "set": call("kv", "set"), "delete": call("kv", "delete"),
		}, "get", "set", "delete")},
		{"approval", object(map[string]nativeFunc{"request": v.approval}, "request")},
	} {
		if err := install(g.name, g.value); err != nil {
			return err
		}
	}
	if h.journal != nil {
		v.installJournal(h.journal)
	}
	return nil
}

// approval is approval.request({message, data}?): with the approval
// capability, it suspends the run (or, replaying, returns the resolution);
// see journal.go.
func (v *vm) approval(c goja.FunctionCall) goja.Value {
	h := v.host
	if h.journal.stopped() { // called again by a built-in before the VM saw the stop
		return goja.Undefined()
	}
	if !slices.Contains(h.grants, "approval") || h.journal == nil {
		panic(v.throwHost(Denied("approval").Err))
	}
	arg := c.Argument(0)
	obj, _ := arg.(*goja.Object)
	var request json.RawMessage
	if _, isString := arg.(goja.String); isString || obj != nil && obj.ClassName() == "String" { // approval.request('Refund?')
		request = append(v.appendJSON([]byte(`{"message":`), arg), '}')
	} else {
		request = v.appendJSON(nil, arg)
	}
	if problem := approvalShape(request); problem != "" {
		if obj != nil && request[0] != '{' && request[0] != '[' { // a Date, or an object with its own toJSON
			problem = "got " + objectName(obj) + ", whose JSON is " + jsonTypeOf(request)
		}
		panic(v.rt.NewTypeError("approval.request takes {message, data}, a message, or nothing: %s", problem))
	}
	return v.approvalRequest(h.journal, request)
}

// approvalShape says what is wrong with an approval request's JSON, or
// "": null, or an object whose message, if any, is a string — what the
// engine shows the person who approves ({message, data}; other members
// are passed on as they are).
func approvalShape(request json.RawMessage) string {
	if string(request) == "null" {
		return ""
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(request, &members); err != nil || members == nil {
		return "got " + jsonTypeOf(request)
	}
	if m, ok := members["message"]; ok && (len(m) == 0 || m[0] != '"' && string(m) != "null") {
		return "message must be a string, got " + jsonTypeOf(m)
	}
	return ""
}

// objectName names an object in a message: "a Date", "an object".
func objectName(obj *goja.Object) string {
	switch class := obj.ClassName(); class {
	case "Object", "Array", "Error":
		return "an " + strings.ToLower(class)
	default:
		return "a " + class
	}
}

// jsonTypeOf names the type of a JSON value with its article.
func jsonTypeOf(v json.RawMessage) string {
	switch {
	case len(v) == 0:
		return "nothing"
	case v[0] == '"':
		return "a string"
	case v[0] == '[':
		return "an array"
	case v[0] == '{':
		return "an object"
	case v[0] == 't' || v[0] == 'f':
		return "a boolean"
	case v[0] == 'n':
		return "null"
	}
	return "a number"
}

// parseJSON parses JSON text with the sandbox's JSON.parse, whatever the
// script did to the global JSON.
func (v *vm) parseJSON(text []byte) goja.Value {
	return v.jsonParse(goja.FunctionCall{This: goja.Undefined(), Arguments: []goja.Value{v.rt.ToValue(string(text))}})
}

// hostCall runs one host call from the script: a capability that is not
// granted throws at once; otherwise the arguments go to the host as JSON
// and its answer comes back parsed, or thrown.
func (v *vm) hostCall(capability, method string, args []goja.Value) goja.Value {
	h := v.host
	if h.journal.stopped() { // nothing runs after a suspension, even from a built-in
		return goja.Undefined()
	}
	if !slices.Contains(h.grants, capability) || h.host == nil {
		panic(v.throwHost(Denied(capability).Err))
	}
	for i, a := range args {
		if at, unit, found := loneSurrogate(a); found {
			panic(v.rt.NewTypeError("%s.%s: argument %d is not well-formed text: a lone surrogate (\\u%04X) at index %d, which the host would receive as U+FFFD; "+
				"pass whole characters", capability, method, i+1, unit, at))
		}
	}
	call := HostCall{Capability: capability, Method: method, Args: v.argsJSON(args)}
	live := func() HostReply { return h.host.Call(h.ctx, call) }
	reply := HostReply{}
	if h.journal == nil {
		reply = live()
	} else if r, ok := v.journaledCall(h.journal, call, live); ok {
		reply = r
	} else {
		return goja.Undefined() // diverged: the run is interrupted
	}
	if reply.Err != nil && reply.Err.Code == CodeTimeout {
		// The job's deadline passed while the call was pending: the run
		// ends here, as at the runtime's own interrupt, and no catch of the
		// script can go on past its time limit.
		if h.position != nil {
			h.timedOut.line, h.timedOut.column = h.position(v.rt.CaptureCallStack(0, nil))
		}
		v.rt.Interrupt(errTimedOut)
		return goja.Undefined()
	}
	if reply.Err != nil {
		panic(v.throwHost(reply.Err))
	}
	if len(reply.Value) == 0 {
		return goja.Undefined()
	}
	return v.parseJSON(reply.Value)
}

// throwHost makes the Error a failed host call throws: name and code from
// e, the message, and, when e has a code, a record of it by identity so
// that the run fails with that code if the script lets it go. A TypeError
// (an argument of the wrong type, found by the host) is the language's,
// instanceof TypeError as those the sandbox throws itself; any other name
// is an Error's own property, as a subclass's constructor sets it.
func (v *vm) throwHost(e *HostError) *goja.Object {
	name := e.Name
	if name == "" {
		name = "Error"
	}
	var obj *goja.Object
	if name == "TypeError" {
		obj = v.rt.NewTypeError("%s", e.Message)
	} else {
		var err error
		if obj, err = v.rt.New(v.host.errorCtor, v.rt.ToValue(e.Message)); err != nil { // the original Error constructor does not throw
			panic(err)
		}
		_ = obj.DefineDataProperty("name", v.rt.ToValue(name), goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	code := string(e.Code)
	if code == "" {
		code = upperSnake(name)
	}
	_ = obj.DefineDataProperty("code", v.rt.ToValue(code), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	if e.Code != "" {
		v.host.thrown[obj] = &Error{Code: e.Code, Message: e.Message}
	}
	return obj
}

// loneSurrogate finds a lone surrogate in a string argument: UTF-8 has no
// such character, so it would reach the host as U+FFFD, and two different
// kv keys ("a\uD800", "a\uDC00") would name one stored key. Only a string
// whose UTF-8 holds U+FFFD can have one; that string is read again as
// UTF-16.
func loneSurrogate(a goja.Value) (at int, unit uint16, found bool) {
	s, ok := a.(goja.String)
	if !ok || !strings.ContainsRune(s.String(), utf8.RuneError) {
		return 0, 0, false
	}
	n := s.Length()
	for i := 0; i < n; i++ {
		c := s.CharAt(i)
		switch {
		case c >= 0xD800 && c <= 0xDBFF && i+1 < n && s.CharAt(i+1) >= 0xDC00 && s.CharAt(i+1) <= 0xDFFF:
			i++ // a pair: one character
		case c >= 0xD800 && c <= 0xDFFF:
			return i, c, true
		}
	}
	return 0, 0, false
}

// argsJSON is the JSON array of a host call's arguments. The array is
// written here, and primitives too, so that nothing the script put on
// Array.prototype or Object.prototype (a toJSON, a getter) can change the
// shape the host receives; an object argument (a body, options) goes
// through the engine's own JSON.stringify, so its own toJSON and getters
// run — they are the script's data — under the deadline, and what they
// throw is the script's exception. An argument
// JSON cannot hold (undefined, a function, a symbol) is null, and a BigInt
// throws a TypeError, as JSON.stringify does.
func (v *vm) argsJSON(args []goja.Value) []byte {
	buf := []byte{'['}
	for i, a := range args {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = v.appendJSON(buf, a)
	}
	return append(buf, ']')
}

func (v *vm) appendJSON(buf []byte, a goja.Value) []byte {
	if _, isSymbol := a.(*goja.Symbol); isSymbol || a == nil || goja.IsUndefined(a) || goja.IsNull(a) {
		return append(buf, "null"...) // a symbol's Export is its description: not JSON's
	}
	if obj, isObj := a.(*goja.Object); isObj {
		out := v.rt.StringifyJSON(goja.FunctionCall{This: goja.Undefined(), Arguments: []goja.Value{obj}})
		if out == nil || goja.IsUndefined(out) {
			return append(buf, "null"...)
		}
		return append(buf, out.String()...)
	}
	switch x := a.Export().(type) {
	case string:
		b, _ := json.Marshal(x) // a Go string always encodes
		return append(buf, b...)
	case bool:
		return strconv.AppendBool(buf, x)
	case int64:
		return strconv.AppendInt(buf, x, 10)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return append(buf, "null"...)
		}
		return strconv.AppendFloat(buf, x, 'g', -1, 64)
	case *big.Int:
		// JSON has no BigInt: the engine's JSON.stringify throws for one,
		// in an array as inside an object, and so does a host call.
		panic(v.rt.NewTypeError("Do not know how to serialize a BigInt: pass it as a string (String(n)) or a number"))
	}
	return append(buf, "null"...)
}

// consoleOrder is console's methods in the order they are defined: the
// five levels of DESIGN.md §9, then Node's others, each written as one of
// those levels so that a script ported from Node does not fail on a
// logging call: dir and table as log (the first argument only, formatted
// as log formats it: no table is drawn), trace as debug ("Trace: …"),
// assert as error when its condition is falsy ("Assertion failed…"),
// count and time as log ("label: n", "label: 1.5ms"), an unknown timer or
// counter as warn, and group as log, the lines until its groupEnd indented
// by two spaces.
var consoleOrder = []string{"log", "info", "warn", "error", "debug",
	"dir", "table", "trace", "assert", "count", "countReset", "time", "timeLog", "timeEnd",
	"group", "groupCollapsed", "groupEnd"}

// ConsoleMethods are the names of the methods of the sandbox's console.
func ConsoleMethods() []string { return slices.Clone(consoleOrder) }

// consoleMethods are console's native functions (consoleOrder).
func (v *vm) consoleMethods() map[string]nativeFunc {
	m := map[string]nativeFunc{}
	done := goja.Undefined()
	text := func(s string) []goja.Value { return []goja.Value{v.rt.ToValue(s)} }
	label := func(call goja.FunctionCall) string {
		if a := call.Argument(0); !goja.IsUndefined(a) {
			return v.formatLogArg(a, 1<<10)
		}
		return "default"
	}
	for _, level := range consoleOrder[:5] {
		m[level] = func(call goja.FunctionCall) goja.Value { v.log(level, call.Arguments); return done }
	}
	first := func(call goja.FunctionCall) goja.Value {
		v.log("log", call.Arguments[:min(len(call.Arguments), 1)])
		return done
	}
	m["dir"], m["table"] = first, first
	m["trace"] = func(call goja.FunctionCall) goja.Value {
		v.log("debug", append(text("Trace:"), call.Arguments...))
		return done
	}
	m["assert"] = func(call goja.FunctionCall) goja.Value {
		if call.Argument(0).ToBoolean() {
			return done
		}
		rest := call.Arguments[min(len(call.Arguments), 1):]
		if len(rest) == 0 {
			v.log("error", text("Assertion failed"))
		} else if s, ok := rest[0].(goja.String); ok { // cut in the VM, as log cuts a string
			v.log("error", append(text("Assertion failed: "+clipString(s, v.host.logs.room())), rest[1:]...))
		} else {
			v.log("error", append(text("Assertion failed:"), rest...))
		}
		return done
	}
	c := &v.host.console
	m["count"] = func(call goja.FunctionCall) goja.Value {
		l := label(call)
		if c.counts == nil {
			c.counts = map[string]int{}
		}
		c.counts[l]++
		v.log("log", text(fmt.Sprintf("%s: %d", l, c.counts[l])))
		return done
	}
	m["countReset"] = func(call goja.FunctionCall) goja.Value {
		l := label(call)
		if _, ok := c.counts[l]; !ok {
			v.log("warn", text(fmt.Sprintf("Count for '%s' does not exist", l)))
			return done
		}
		c.counts[l] = 0
		return done
	}
	m["time"] = func(call goja.FunctionCall) goja.Value {
		l := label(call)
		if c.timers == nil {
			c.timers = map[string]time.Time{}
		}
		if _, ok := c.timers[l]; ok {
			v.log("warn", text(fmt.Sprintf("Label '%s' already exists for console.time()", l)))
			return done
		}
		c.timers[l] = time.Now()
		return done
	}
	elapsed := func(name string, end bool) nativeFunc {
		return func(call goja.FunctionCall) goja.Value {
			l := label(call)
			start, ok := c.timers[l]
			if !ok {
				v.log("warn", text(fmt.Sprintf("No such label '%s' for console.%s()", l, name)))
				return done
			}
			ms := float64(time.Since(start).Microseconds()) / 1000
			args := text(fmt.Sprintf("%s: %sms", l, strconv.FormatFloat(ms, 'f', -1, 64)))
			if end {
				delete(c.timers, l)
			} else {
				args = append(args, call.Arguments[min(len(call.Arguments), 1):]...)
			}
			v.log("log", args)
			return done
		}
	}
	m["timeLog"], m["timeEnd"] = elapsed("timeLog", false), elapsed("timeEnd", true)
	group := func(call goja.FunctionCall) goja.Value {
		if len(call.Arguments) > 0 {
			v.log("log", call.Arguments)
		}
		c.indent = min(c.indent+1, 16)
		return done
	}
	m["group"], m["groupCollapsed"] = group, group
	m["groupEnd"] = func(goja.FunctionCall) goja.Value {
		c.indent = max(c.indent-1, 0)
		return done
	}
	return m
}

// consoleState is what console's counters, timers and groups keep during
// one run.
type consoleState struct {
	counts map[string]int
	timers map[string]time.Time
	indent int
}

// log captures one console line, unless the run's caps are reached.
func (v *vm) log(level string, args []goja.Value) {
	b := &v.host.logs
	if b.full() {
		if !b.truncated {
			b.truncated = true
			b.sync()
		}
		return
	}
	var sb strings.Builder
	for range v.host.console.indent {
		sb.WriteString("  ")
	}
	if len(args) > 1 {
		// The format is cut in the VM before it is copied out, as any
		// string is: what lies past the room is never written.
		if format, ok := args[0].(goja.String); ok {
			if f := clipString(format, b.room()); strings.Contains(f, "%") {
				args = v.printf(&sb, f, args[1:], b.room())
				if len(args) > 0 {
					sb.WriteByte(' ')
				}
			}
		}
	}
	for i, a := range args {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(v.formatLogArg(a, b.room()-sb.Len()))
		if sb.Len() > b.room() {
			break
		}
	}
	line, _ := v.host.position(v.rt.CaptureCallStack(0, nil))
	b.add(LogEntry{Level: level, Message: sb.String(), Line: line})
}

// printf writes format to sb as Node's console does with its first
// argument: %s, %d, %i, %f, %j, %o, %O and %c each take the next argument
// (%c, a style, is dropped), %% is %, and a specifier with no argument left
// stays as it is. It returns the arguments left, which follow, each after
// a space.
func (v *vm) printf(sb *strings.Builder, format string, args []goja.Value, room int) []goja.Value {
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			sb.WriteByte(c)
			continue
		}
		verb := format[i+1]
		if verb == '%' {
			sb.WriteByte('%')
			i++
			continue
		}
		if !strings.ContainsRune("sdifjoOc", rune(verb)) || len(args) == 0 {
			sb.WriteByte(c)
			continue
		}
		a := args[0]
		args = args[1:]
		i++
		switch verb {
		case 'd', 'i', 'f':
			sb.WriteString(v.formatNumber(a, verb))
		case 'j': // JSON.stringify's: a string quoted
			if str, ok := a.(goja.String); ok {
				writeJSONString(sb, clipString(str, room-sb.Len()), room-sb.Len())
				break
			}
			sb.WriteString(v.formatLogArg(a, room-sb.Len()))
		case 'c':
		default: // s, j, o, O
			sb.WriteString(v.formatLogArg(a, room-sb.Len()))
		}
		if sb.Len() > room {
			break
		}
	}
	return args
}

// formatNumber is %d, %i or %f of a, as Node's util.format writes them: a
// BigInt as its digits and n (%f: as a number), a Symbol NaN, anything else
// Number(a) (%d), parseInt(String(a)) (%i) or parseFloat(String(a)) (%f),
// with -0 as -0. An object's valueOf or toString is the script's code:
// what it throws makes NaN, as console never fails the script.
func (v *vm) formatNumber(a goja.Value, verb byte) (text string) {
	if a == nil {
		return "NaN"
	}
	if _, isSym := a.(*goja.Symbol); isSym {
		return "NaN"
	}
	if goja.IsBigInt(a) {
		if verb == 'f' { // parseFloat of its digits (ToFloat of a BigInt throws)
			return primitiveString(v.rt.ToValue(parseFloatText(a.String())))
		}
		return a.String() + "n"
	}
	var f float64
	if ex := v.rt.Try(func() {
		switch verb {
		case 'd':
			f = a.ToFloat()
		case 'i':
			f = parseIntText(a.String())
		default:
			f = parseFloatText(a.String())
		}
	}); ex != nil {
		return "NaN"
	}
	if f == 0 && math.Signbit(f) {
		return "-0"
	}
	return primitiveString(v.rt.ToValue(f))
}

// parseIntText is JavaScript's parseInt(s) with no radix: leading white
// space, a sign, 0x for hexadecimal, then as many digits as there are; NaN
// for none.
func parseIntText(s string) float64 {
	s = strings.TrimLeftFunc(s, isJSSpace)
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	base := 10.0
	if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		base, s = 16, s[2:]
	}
	n, digits := 0.0, 0
	for ; digits < len(s); digits++ {
		d := digitValue(s[digits])
		if d < 0 || float64(d) >= base {
			break
		}
		n = n*base + float64(d)
	}
	if digits == 0 {
		return math.NaN()
	}
	if base == 10 && digits > 15 { // past 2^53 the sum rounds at every digit
		n, _ = strconv.ParseFloat(s[:digits], 64)
	}
	if neg {
		return -n
	}
	return n
}

// digitValue is c's value as a digit of base 36, -1 for no digit.
func digitValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'z':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}

// floatPrefix is the longest start of a text parseFloat reads.
var floatPrefix = regexp.MustCompile(`^[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)`)

// parseFloatText is JavaScript's parseFloat(s): leading white space, then
// the longest decimal literal (or Infinity) there is; NaN for none.
func parseFloatText(s string) float64 {
	m := floatPrefix.FindString(strings.TrimLeftFunc(s, isJSSpace))
	if m == "" {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(strings.Replace(m, "Infinity", "Inf", 1), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return math.NaN()
	}
	return f
}

// isJSSpace is JavaScript's white space and line terminators, which
// parseInt and parseFloat skip.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return 0x2000 <= r && r <= 0x200A
}

// formatLogArg is one console argument as text: a string as it is, an
// Error as "Name: message", a function as [Function: name], a regular
// expression as /source/flags, a Date as its ISO time, a Map or Set with its
// size and items, another object or array as JSON (with the engine's own
// JSON.stringify; an object met again inside itself is "[Circular]", one
// nested deeper than logMaxDepth "[Object]" or "[Array]"),
// anything else as String() would give. A value that cannot be read (a
// throwing getter) is named, not thrown: console never fails the script.
// The deadline and the stack limit still end it. A string or JSON text
// longer than room bytes is cut in the VM, before it is copied out: the
// book keeps room bytes at most, and a copy of a huge string would take
// the run's memory.
func (v *vm) formatLogArg(a goja.Value, room int) (text string) {
	obj, ok := a.(*goja.Object)
	if !ok {
		if a == nil {
			return "undefined"
		}
		if s, isString := a.(goja.String); isString {
			return clipString(s, room)
		}
		return logPrimitive(a)
	}
	if slices.Contains(v.logPath, obj) { // inside a Map or Set inside itself
		return "[Circular]"
	}
	v.logPath = append(v.logPath, obj)
	defer func() { v.logPath = v.logPath[:len(v.logPath)-1] }()
	// The script's code runs in here (a getter, a toJSON, a Proxy's trap).
	// What it throws is caught with the engine's Try, which puts the VM's
	// stacks back as they were: caught with recover, they were left
	// unwound, and the next catch of the calling function got the console
	// object instead of its error. An interrupt or a stack overflow goes
	// on: the run ends.
	if ex := v.rt.Try(func() { text = v.formatObject(obj, room) }); ex != nil {
		return "[" + className(obj) + " that cannot be shown]"
	}
	return text
}

// formatObject is formatLogArg of an object.
func (v *vm) formatObject(obj *goja.Object, room int) string {
	if text, ok := v.errorOrFunctionText(obj, room); ok {
		return text
	}
	if text, ok := v.formatBuiltin(obj, room); ok {
		return text
	}
	out := v.rt.StringifyJSON(goja.FunctionCall{This: goja.Undefined(), Arguments: []goja.Value{obj, v.circular()}})
	if out == nil || goja.IsUndefined(out) {
		return "[" + className(obj) + "]"
	}
	if s, isString := out.(goja.String); isString {
		return clipString(s, room)
	}
	return out.String()
}

// errorOrFunctionText is an Error as "Name: message", followed by its own
// enumerable properties when it has any (a host error's code), and a
// function as [Function: name], as console writes them alone or inside an
// object; ok is false for any other object.
func (v *vm) errorOrFunctionText(obj *goja.Object, room int) (string, bool) {
	if className(obj) == "Error" {
		name := stringOf(obj.Get("name"))
		return errorText(name, stringOf(obj.Get("message"))) + v.errorProps(obj, name, room), true
	}
	return functionText(obj)
}

// functionText is a function as [Function: name]; ok is false for any
// other value.
func functionText(obj *goja.Object) (string, bool) {
	if _, isFunc := goja.AssertFunction(obj); isFunc {
		if name := stringOf(obj.Get("name")); name != "" {
			return "[Function: " + name + "]", true
		}
		return "[Function (anonymous)]", true
	}
	return "", false
}

// errorPropsMax is how many properties console writes of an Error, and of
// an object or array among them.
const errorPropsMax = 20

// errorProps is " " and an Error's own enumerable properties as JSON, as
// Node writes them after the stack ({"code":"NETWORK_ERROR"}), or "" when
// it has none but message, stack and the name the header shows. It runs
// none of the script's code (no getter, no toJSON: an accessor is
// "[Getter]") and its work is bounded whatever the error holds: at most
// errorPropsMax properties, each value one level deep (an object or array
// among them writes its first errorPropsMax items, each a primitive, or
// "[Object]", "[Array]", an error's or a function's text), the text cut
// past room bytes. A property that cannot be read (a Proxy's trap throws)
// leaves the error written without them.
func (v *vm) errorProps(obj *goja.Object, name string, room int) (text string) {
	if ex := v.rt.Try(func() { text = errorPropsOf(obj, name, room) }); ex != nil {
		return "" // caught as formatLogArg catches (a Proxy's trap threw)
	}
	return text
}

// errorPropsOf is errorProps, throwing what a Proxy's trap throws.
func errorPropsOf(obj *goja.Object, name string, room int) string {
	var b strings.Builder
	n := writeMembers(&b, obj, false, true, room, func(key string, val goja.Value, accessor bool) bool {
		return key == "message" || key == "stack" || key == "name" && !accessor && stringOf(val) == name
	})
	if n == 0 {
		return ""
	}
	return " " + b.String()
}

// writeMembers writes obj's own enumerable properties as a JSON object,
// or, for an array, its items as a JSON array, and returns how many it
// wrote: at most errorPropsMax (then ",…"), none past room bytes, an
// accessor as "[Getter]" (its getter not called), each value by
// writeShallow (valuesOpen: each one level deep). An object's undefined
// members are left out, as JSON leaves them, and so are those skip names.
func writeMembers(b *strings.Builder, obj *goja.Object, array, valuesOpen bool, room int, skip func(key string, val goja.Value, accessor bool) bool) int {
	open, end := byte('{'), byte('}')
	if array {
		open, end = '[', ']'
	}
	n := 0
	obj.EachOwnProperty(func(key string, val goja.Value, accessor bool) bool {
		if !array && !accessor && goja.IsUndefined(val) || skip != nil && skip(key, val, accessor) {
			return true
		}
		if n == errorPropsMax || b.Len() > room {
			b.WriteString(",…")
			return false
		}
		if n == 0 {
			b.WriteByte(open)
		} else {
			b.WriteByte(',')
		}
		n++
		if !array {
			writeJSONString(b, key, room)
			b.WriteByte(':')
		}
		if accessor {
			b.WriteString(`"[Getter]"`)
			return true
		}
		writeShallow(b, val, valuesOpen, room)
		return true
	})
	if n == 0 {
		b.WriteByte(open)
	}
	b.WriteByte(end)
	return n
}

// writeShallow writes val as JSON for errorProps: a primitive as console
// writes it inside an object, an error's or a function's text, a Date's
// ISO time, and, when open, a plain object or array with its first
// errorPropsMax items written closed (any object among them as "[Object]"
// or "[Array]"), any other object as "[Class]".
func writeShallow(b *strings.Builder, val goja.Value, open bool, room int) {
	obj, isObj := val.(*goja.Object)
	if !isObj {
		switch {
		case val == nil || goja.IsNull(val):
			b.WriteString("null")
		case goja.IsUndefined(val):
			b.WriteString(`"undefined"`)
		default:
			if s, ok := val.(goja.String); ok {
				writeJSONString(b, clipString(s, room), room)
				return
			}
			text := logPrimitive(val)
			switch x := val.Export().(type) {
			case int64, bool:
				b.WriteString(text)
				return
			case float64:
				if !math.IsNaN(x) && !math.IsInf(x, 0) && text != "-0" {
					b.WriteString(text)
					return
				}
			}
			writeJSONString(b, text, room)
		}
		return
	}
	kind := className(obj)
	switch kind {
	case "Error":
		writeJSONString(b, errorText(stringOf(obj.Get("name")), stringOf(obj.Get("message"))), room)
		return
	case "Date":
		if t, ok := obj.Export().(time.Time); ok {
			writeJSONString(b, t.UTC().Format("2006-01-02T15:04:05.000Z"), room)
		} else {
			writeJSONString(b, "Invalid Date", room)
		}
		return
	}
	if text, ok := functionText(obj); ok {
		writeJSONString(b, text, room)
		return
	}
	if !open || kind != "Object" && kind != "Array" || obj.ExportType() == proxyExport {
		writeJSONString(b, "["+kind+"]", room)
		return
	}
	writeMembers(b, obj, kind == "Array", false, room, nil)
}

// writeJSONString writes s as a JSON string, cut past room bytes (at a
// character).
func writeJSONString(b *strings.Builder, s string, room int) {
	if room = max(room, 0); len(s) > room {
		for room > 0 && !utf8.RuneStart(s[room]) {
			room--
		}
		s = s[:room]
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // as JSON.stringify: <, > and & as they are
	_ = enc.Encode(s)
	b.Write(bytes.TrimSuffix(out.Bytes(), []byte("\n")))
}

// formatBuiltin writes the built-in objects JSON would write as {}: a
// RegExp, a Date (ISO time, or Invalid Date), a Map and a Set (their size
// and items, each item as formatLogArg writes it). It reads them through
// the methods the script sees, under its deadline.
func (v *vm) formatBuiltin(obj *goja.Object, room int) (string, bool) {
	kind := className(obj)
	switch kind {
	case "RegExp":
		return "/" + stringOf(obj.Get("source")) + "/" + stringOf(obj.Get("flags")), true
	case "Date":
		if t, ok := obj.Export().(time.Time); ok {
			return t.UTC().Format("2006-01-02T15:04:05.000Z"), true
		}
		return "Invalid Date", true
	case "Object": // goja's class of a Map and a Set; their export tells them
		switch obj.ExportType() {
		case mapExport:
			kind = "Map"
		case setExport:
			kind = "Set"
		default:
			return "", false
		}
	default:
		return "", false
	}
	size := stringOf(obj.Get("size"))
	if v.logDepth >= 2 { // a Map in a Map in a Map, or one that holds itself
		return kind + "(" + size + ") {…}", true
	}
	v.logDepth++
	defer func() { v.logDepth-- }()
	var sb strings.Builder
	n := 0
	items := v.rt.ToValue(obj).ToObject(v.rt)
	iter, ok := goja.AssertFunction(items.GetSymbol(goja.SymIterator))
	if !ok {
		return "", false
	}
	it, err := iter(items)
	if err != nil {
		panic(err)
	}
	next, ok := goja.AssertFunction(it.ToObject(v.rt).Get("next"))
	if !ok {
		return "", false
	}
	for sb.Len() <= room {
		step, err := next(it)
		if err != nil {
			panic(err)
		}
		s := step.ToObject(v.rt)
		if s.Get("done").ToBoolean() {
			break
		}
		if n > 0 {
			sb.WriteString(", ")
		}
		n++
		item := s.Get("value")
		if kind == "Map" {
			pair := item.ToObject(v.rt)
			sb.WriteString(v.formatItem(pair.Get("0"), room-sb.Len()))
			sb.WriteString(" => ")
			item = pair.Get("1")
		}
		sb.WriteString(v.formatItem(item, room-sb.Len()))
	}
	if n == 0 {
		return kind + "(" + size + ") {}", true
	}
	return kind + "(" + size + ") {" + sb.String() + "}", true
}

// What goja exports a Map and a Set as (an array exports as a slice too,
// but its class is Array).
var (
	mapExport   = reflect.TypeFor[[][2]any]()
	setExport   = reflect.TypeFor[[]any]()
	proxyExport = reflect.TypeFor[goja.Proxy]()
)

// formatItem is an item of a Map or Set: a string quoted, as Node writes
// it, anything else as formatLogArg writes it.
func (v *vm) formatItem(a goja.Value, room int) string {
	if s, ok := a.(goja.String); ok {
		b, _ := json.Marshal(clipString(s, room))
		return string(b)
	}
	return v.formatLogArg(a, room)
}

// logMaxDepth is how deep console writes an object: what is nested deeper
// is written "[Object]" or "[Array]", as Node writes what is past its
// depth, so a deeply nested value is logged, not a stack overflow.
const logMaxDepth = 20

// circular is a JSON.stringify replacer that writes an object met again
// inside itself as "[Circular]", where JSON.stringify would throw: it keeps
// the objects on the path from the root to the value it is given.
func (v *vm) circular() goja.Value {
	var path []*goja.Object
	return v.rt.ToValue(func(call goja.FunctionCall) goja.Value {
		holder, _ := call.This.(*goja.Object)
		value := call.Argument(1)
		for len(path) > 0 && path[len(path)-1] != holder {
			path = path[:len(path)-1]
		}
		if obj, ok := value.(*goja.Object); ok {
			// v.logPath ends with the object being written: its own
			// references are on path.
			if slices.Contains(path, obj) || slices.Contains(v.logPath[:max(len(v.logPath)-1, 0)], obj) {
				return v.rt.ToValue("[Circular]")
			}
			if text, ok := v.formatBuiltin(obj, 1<<10); ok { // a Map, a Set, a RegExp: JSON writes {}
				return v.rt.ToValue(text)
			}
			if len(path) >= logMaxDepth { // as Node writes what is past its depth
				if className(obj) == "Array" {
					return v.rt.ToValue("[Array]")
				}
				return v.rt.ToValue("[Object]")
			}
			path = append(path, obj)
		}
		if obj, ok := value.(*goja.Object); ok {
			// What JSON writes as {} or leaves out, written as console
			// writes it alone: an error caught and logged inside an object
			// ({erro}) kept nothing of its message.
			if text, ok := v.errorOrFunctionText(obj, 1<<10); ok {
				return v.rt.ToValue(text)
			}
		}
		if goja.IsBigInt(value) { // JSON.stringify throws for a BigInt
			return v.rt.ToValue(logPrimitive(value))
		}
		if _, isObj := value.(*goja.Object); !isObj { // Export of an object copies all it holds
			if f, ok := value.Export().(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) { // JSON writes null
				return v.rt.ToValue(logPrimitive(value))
			}
		}
		return value
	})
}

// logPrimitive is a primitive as console writes it, as Node does: a BigInt
// with its n, -0 as -0, anything else as String() would give.
func logPrimitive(a goja.Value) string {
	switch x := a.Export().(type) {
	case *big.Int:
		return x.String() + "n"
	case float64:
		if x == 0 && math.Signbit(x) {
			return "-0"
		}
	}
	return primitiveString(a)
}

// clipString is s as Go text, cut to its first room+1 UTF-16 units when it is
// longer: each unit is at least a byte of UTF-8, so what is cut is past
// room bytes, and the log book's own cut (at a character) still decides.
func clipString(s goja.String, room int) string {
	if room < 0 {
		room = 0
	}
	if s.Length() > room+1 {
		s = s.Substring(0, room+1)
	}
	return s.String()
}

// isThrow reports whether a panic out of goja is a JavaScript throw: an
// *goja.Exception, or the value a built-in throws (a TypeError's object),
// not an interrupt or a stack overflow.
func isThrow(x any) bool {
	switch x.(type) {
	case *goja.Exception, goja.Value:
		return true
	}
	return false
}

// className is obj's class, or "Proxy" for a revoked Proxy, whose class
// goja panics to read.
func className(obj *goja.Object) (class string) {
	defer func() {
		if x := recover(); x != nil {
			if !isThrow(x) {
				panic(x)
			}
			class = "Proxy"
		}
	}()
	return obj.ClassName()
}

// logBook holds a run's console lines within its caps.
//
// A resumed run replays its first part, and the suspended result carried
// that part's lines: its own lines are those of the live part. While it
// replays (replaying) the book fills exactly as it did in the suspended
// run — which lines were formatted decides which toJSON the replay calls —
// but tells its mirror nothing, and its lines are not the result's; when
// the replay ends (startLive) it starts empty, with its caps.
type logBook struct {
	entries    []LogEntry
	bytes      int
	maxEntries int
	maxBytes   int
	truncated  bool
	replaying  bool
	// mirror, when set, is told every change (Request.Logs); gen counts
	// the times the book started over.
	mirror LogMirror
	gen    int
}

func (b *logBook) sync() {
	if b.mirror != nil && !b.replaying {
		b.mirror.Mirror(b.gen, b.entries, b.truncated)
	}
}

// startLive empties the book of a resumed run whose replay just ended.
func (b *logBook) startLive() {
	*b = logBook{maxEntries: b.maxEntries, maxBytes: b.maxBytes, mirror: b.mirror, gen: b.gen + 1}
	b.sync()
}

// kept is what the result carries: nothing of a replay that never ended.
func (b *logBook) kept() ([]LogEntry, bool) {
	if b.replaying {
		return nil, false
	}
	return b.entries, b.truncated
}

func (b *logBook) full() bool {
	return len(b.entries) >= b.maxEntries || b.bytes >= b.maxBytes
}

func (b *logBook) room() int { return b.maxBytes - b.bytes }

// add keeps e, cut to the bytes left. A line that had to be cut fills the
// book: the bytes it leaves (less than a character) hold no later line, and
// a line cut to nothing is not kept.
func (b *logBook) add(e LogEntry) {
	defer b.sync()
	msg, cut := textcut.Cut(e.Message, b.room())
	if !cut {
		b.bytes += len(msg)
	} else {
		b.truncated, b.bytes = true, b.maxBytes
		if msg == "" {
			return
		}
	}
	e.Message = msg
	b.entries = append(b.entries, e)
}

// structured is the error of a structured failure (seed 001): the script
// returned {success: false, error: {code, message}}.
type structured struct{ err *Error }

func (s *structured) Error() string { return s.err.Message }

// Caps on what a structured failure carries back.
const (
	maxReasonBytes        = 128
	maxStructuredMsgBytes = 4 << 10
)

// structuredFailure reads a result whose serialization is {"success":
// false, "error": {"code", "message"}} (seed 001) as a failure:
// SCRIPT_ERROR, the author's code as Reason and the author's message (cut
// to their caps); an error that is a text (or a number) is the message,
// without a code. success must be the boolean false; anything else is an
// ordinary result. It reads the serialization, not the object, as the
// engine would: a getter or a Proxy's trap ran once, in JSON.stringify,
// and what a toJSON returned is what counts (a success read from the
// object, then again by the serialization, could say false once and true
// the next time).
func structuredFailure(serialized string) *structured {
	if !strings.HasPrefix(serialized, "{") || !strings.Contains(serialized, `"success":false`) {
		return nil
	}
	top := jsonMembers([]byte(serialized))
	if string(top["success"]) != "false" {
		return nil
	}
	e := &Error{Code: CodeScriptError, Message: "the script reported a failure"}
	if detail := jsonMembers(top["error"]); detail != nil {
		if code := structuredText(detail["code"]); code != "" {
			e.Reason, _ = textcut.Cut(code, maxReasonBytes)
			e.Message = "the script reported the failure " + e.Reason + ", without a message"
		}
		if msg := structuredText(detail["message"]); msg != "" {
			e.Message, _ = textcut.Cut(msg, maxStructuredMsgBytes)
		} else if e.Reason == "" {
			// {success: false, error: e} with e an Error: its message and
			// name are not enumerable, so its JSON is {} or near it.
			e.Message = "the script reported a failure whose error has no code or message in its JSON " +
				"(an Error's message is not serialized: return {success: false, error: {code, message: e.message}})"
		}
	} else if msg := structuredText(top["error"]); msg != "" {
		// {success: false, error: 'cliente não encontrado'}: the text is
		// the message, and there is no code.
		e.Message, _ = textcut.Cut(msg, maxStructuredMsgBytes)
	}
	return &structured{err: e}
}

// jsonMembers is the members of a JSON object, by their exact names
// (unlike a struct's fields, which match any case); nil for anything else.
func jsonMembers(data []byte) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

// structuredText is a structured failure's code or message as text: a
// string that is not blank, or a number or a boolean as its JSON text
// (which is JavaScript's String of it). Anything else (an object, null, a
// blank string; a symbol was left out by the serialization) is "": the
// failure keeps a message that says what it lacks, never "" or "[object
// Object]".
func structuredText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
			return s
		}
	case c == 't' || c == 'f' || c == '-' || (c >= '0' && c <= '9'):
		return string(raw)
	}
	return ""
}

// upperSnake turns an error name into a code: NetworkError → NETWORK_ERROR.
func upperSnake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}
