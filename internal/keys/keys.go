// Package keys reads configuration keys off Go struct types: the koanf
// tags the configuration and strategy parameters are decoded by. Both the
// configuration's problems (unknown keys, suggestions, what a field
// needs) and the strategies' parameter errors ask it.
package keys

import "reflect"

// Deref follows pointers to the type they point at.
func Deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// Of lists the keys of a struct type (through pointers), in field order;
// nil for any other type.
func Of(t reflect.Type) []string {
	t = Deref(t)
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if tag := t.Field(i).Tag.Get("koanf"); tag != "" {
			out = append(out, tag)
		}
	}
	return out
}

// Field is the type of the field of struct type t (through pointers)
// whose key is key; nil when there is none.
func Field(t reflect.Type, key string) reflect.Type {
	t = Deref(t)
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("koanf") == key {
			return t.Field(i).Type
		}
	}
	return nil
}
