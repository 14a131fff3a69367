package exchange

import (
	"reflect"
	"unicode/utf8"
)

// MaxEcho is the most of a caller's text, in bytes, that a refusal message
// quotes: a message names what was wrong, it does not echo a request back
// (a megabyte of body, or a value a caller did not mean to see printed).
const MaxEcho = 64

// Clip returns s cut to MaxEcho bytes on a character boundary, with "..."
// marking a cut.
func Clip(s string) string {
	if len(s) <= MaxEcho {
		return s
	}
	cut := MaxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// ClipArgs returns format arguments with every string (named string types
// included) and every error's text clipped (Clip), for refusal messages
// built with fmt from what a request carried.
func ClipArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			out[i] = Clip(v)
		case error:
			out[i] = Clip(v.Error())
		default:
			if rv := reflect.ValueOf(a); rv.Kind() == reflect.String {
				out[i] = Clip(rv.String())
			} else {
				out[i] = a
			}
		}
	}
	return out
}
