package tools

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// mistyped finds the first value in raw whose JSON type does not fit t, the
// type it decodes into, and returns its path (`b[0].n`, `calls.search`),
// the type it should have and what was sent ("string", "number 1.5").
// encoding/json's type error names struct fields only, so a wrong value in
// an array or a map was reported at the array or map holding it.
func mistyped(raw json.RawMessage, t reflect.Type, path string) (string, reflect.Type, string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, "", false
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) ||
		reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
		return "", nil, "", false // decodes itself: its own error says what is wrong
	}
	got := jsonType(raw)
	switch t.Kind() {
	case reflect.Interface:
		return "", nil, "", false
	case reflect.Struct:
		var m map[string]json.RawMessage
		if got != "object" || json.Unmarshal(raw, &m) != nil {
			return path, t, got, true
		}
		for _, f := range reflect.VisibleFields(t) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous || name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if v, ok := m[name]; ok {
				if p, w, g, bad := mistyped(v, f.Type, join(path, name)); bad {
					return p, w, g, bad
				}
			}
		}
	case reflect.Map:
		var m map[string]json.RawMessage
		if got != "object" || json.Unmarshal(raw, &m) != nil {
			return path, t, got, true
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if p, w, g, bad := mistyped(m[k], t.Elem(), join(path, k)); bad {
				return p, w, g, bad
			}
		}
	case reflect.Slice, reflect.Array:
		var a []json.RawMessage
		if got != "array" || json.Unmarshal(raw, &a) != nil {
			return path, t, got, true
		}
		for i, v := range a {
			if p, w, g, bad := mistyped(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); bad {
				return p, w, g, bad
			}
		}
	case reflect.String:
		return path, t, got, got != "string"
	case reflect.Bool:
		return path, t, got, got != "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		var n int64
		if got == "number" && json.Unmarshal(raw, &n) != nil {
			return path, t, "number " + string(raw), true
		}
		return path, t, got, got != "number"
	case reflect.Float32, reflect.Float64:
		return path, t, got, got != "number"
	}
	return "", nil, "", false
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// jsonType names the JSON type of a value as encoding/json's errors do.
func jsonType(raw json.RawMessage) string {
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	}
	return "number"
}
