module github.com/dop251/goja

go 1.25.0

require (
	github.com/Masterminds/semver/v3 v3.5.0
	github.com/dlclark/regexp2/v2 v2.5.2
	github.com/dop251/goja_nodejs v0.0.0-20211022123610-8dd9abb0616d
	github.com/go-sourcemap/sourcemap v2.1.3+incompatible
	github.com/goccy/go-yaml v1.19.2
	github.com/google/pprof v0.0.0-20230207041349-798e818bf904
	golang.org/x/text v0.3.8
)

// FlowScript: regexp2 as FlowScript carries it (../regexp2/FLOWSCRIPT.md).
replace github.com/dlclark/regexp2/v2 => ../regexp2
