package guardrails

import (
	"fmt"

	"github.com/flowscript/flowscript/internal/sandbox"
)

// rule is what a free reference to a host global is reported as.
type rule struct {
	code    Code
	message string
}

// hostGlobals are the names whose free reference refuses the save: none
// exists in the sandbox (DESIGN.md §3), so reaching the reference throws.
// console is not one of them: the sandbox captures its logs (DESIGN.md §9).
var hostGlobals = map[string]rule{
	"require":        {CodeRequire, "require is not available in the sandbox: scripts cannot load modules; copy the code you need into the script"},
	"module":         {CodeModule, "module is not available in the sandbox: there are no CommonJS modules; return the result from execute instead of exporting it"},
	"exports":        {CodeModule, "exports is not available in the sandbox: there are no CommonJS modules; return the result from execute instead of exporting it"},
	"__dirname":      {CodeModule, "__dirname is not available in the sandbox: scripts have no file system"},
	"__filename":     {CodeModule, "__filename is not available in the sandbox: scripts have no file system"},
	"process":        {CodeProcess, "process is not available in the sandbox: scripts cannot read the environment or control the process; pass the values you need as input variables"},
	"fetch":          {CodeNetwork, "fetch is not available in the sandbox: call an approved service with api.get or api.post (the api capability, through a connector your operator defines), or fetch the data in an earlier block and pass it as an input variable"},
	"XMLHttpRequest": {CodeNetwork, "XMLHttpRequest is not available in the sandbox: call an approved service with api.get or api.post (the api capability, through a connector your operator defines), or fetch the data in an earlier block and pass it as an input variable"},
	"WebSocket":      {CodeNetwork, "WebSocket is not available in the sandbox: scripts have no network access"},
	"setTimeout":     timerRule("setTimeout"),
	"setInterval":    timerRule("setInterval"),
	"setImmediate":   timerRule("setImmediate"),
	"clearTimeout":   timerRule("clearTimeout"),
	"clearInterval":  timerRule("clearInterval"),
	"clearImmediate": timerRule("clearImmediate"),
	"queueMicrotask": timerRule("queueMicrotask"),
	"eval":           {CodeEval, "eval is disabled in the sandbox: write the code directly in the script"},
	"Buffer":         {CodeBuffer, "Buffer is not available in the sandbox: work with strings and arrays"},
	"global":         {CodeHostObject, "global is not defined in the sandbox: use the built-ins (Math, JSON, Date…) directly"},
	"window":         {CodeHostObject, "window is not defined in the sandbox: there is no browser; use the built-ins (Math, JSON, Date…) directly"},
	"document":       {CodeHostObject, "document is not defined in the sandbox: there is no browser or page"},
}

func timerRule(name string) rule {
	return rule{CodeTimer, name + " is not available in the sandbox: scripts run synchronously; compute the result and return it"}
}

const (
	msgImport              = "import is not available in the sandbox: scripts cannot load modules; copy the code you need into the script"
	msgFunctionConstructor = "the Function constructor is disabled in the sandbox: declare the function in the script instead of building it from text"
	msgAsyncExecute        = "execute must not be async: the sandbox has no event loop and an async execute always fails with \"" +
		sandbox.MsgAsyncUnsupported + "\"; remove async and await"
	msgAsyncFunction = "async functions are not supported: the sandbox has no event loop, and a Promise that reaches the result fails the script with \"" +
		sandbox.MsgAsyncUnsupported + "\""
	msgWrapperEscape = "this brace closes the function the script runs in: the source has an unmatched closing brace"
)

const (
	msgConnectorUnknown = "connector not known at save time: the first argument of this api call is not a string literal, " +
		"so the report cannot list the connector it needs; write the connector's name as a string, e.g. api.get('crm', path)"
	msgAPIIndirect = "connector not known at save time: api is used other than in a call api.get/post/put/patch/delete('connector', …), " +
		"so the report cannot list the connectors it reaches"
)

var msgTooManyConnectors = fmt.Sprintf("the script names more than %d connectors: the report lists the first %d", MaxConnectors, MaxConnectors)

func globalThisMessage(name string) string {
	return "globalThis." + name + " is undefined in the sandbox: " + name + " is a host global the sandbox does not offer"
}
