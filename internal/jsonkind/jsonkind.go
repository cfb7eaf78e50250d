// Package jsonkind names JSON values in messages for people: the kind of
// value a Go type decodes from, and encoding/json's name of the kind it
// got, each with its article ("an object", "a string").
package jsonkind

import (
	"reflect"
	"strings"
)

// Of names the JSON value that decodes into t.
func Of(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int64:
		return "a number"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "another value"
}

// Got is encoding/json's name of a value's kind (UnmarshalTypeError's
// Value: "object", "bool", "number 1.5") with its article.
func Got(kind string) string {
	kind, _, _ = strings.Cut(kind, " ")
	switch kind {
	case "object", "array":
		return "an " + kind
	case "bool":
		return "a boolean"
	case "":
		return "another value"
	}
	return "a " + kind
}
