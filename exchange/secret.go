package exchange

import "log/slog"

// redacted is what a Secret prints as, in every format.
const redacted = "REDACTED"

// Secret holds an API secret or key. It never prints its value: fmt verbs,
// slog and JSON encoding all see "REDACTED". The value sits behind a pointer
// so that even reflection-based printing of an enclosing struct shows only an
// address.
type Secret struct {
	v *[]byte
}

// NewSecret wraps s.
func NewSecret(s string) Secret {
	b := []byte(s)
	return Secret{v: &b}
}

// IsZero reports whether no secret is set.
func (s Secret) IsZero() bool { return s.v == nil || len(*s.v) == 0 }

// reveal returns the secret bytes; only the signer and the key header use it.
func (s Secret) reveal() []byte {
	if s.v == nil {
		return nil
	}
	return *s.v
}

// String implements fmt.Stringer.
func (Secret) String() string { return redacted }

// GoString implements fmt.GoStringer.
func (Secret) GoString() string { return redacted }

// LogValue implements slog.LogValuer.
func (Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON keeps secrets out of JSON dumps.
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }
