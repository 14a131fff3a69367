package keys

import (
	"reflect"
	"strings"
	"testing"
)

type inner struct {
	B int `koanf:"b"`
}

type outer struct {
	A     string `koanf:"a"`
	In    *inner `koanf:"in"`
	plain int
}

func TestKeys(t *testing.T) {
	ty := reflect.TypeOf(&outer{})
	if got := strings.Join(Of(ty), ","); got != "a,in" {
		t.Errorf("Of: %q", got)
	}
	if got := Of(Field(ty, "in")); strings.Join(got, ",") != "b" {
		t.Errorf("Of(in): %q", got)
	}
	if Field(ty, "nope") != nil || Field(reflect.TypeOf(1), "a") != nil || Of(reflect.TypeOf("")) != nil {
		t.Error("a missing key or a non-struct type gives nil")
	}
	_ = outer{}.plain
}
