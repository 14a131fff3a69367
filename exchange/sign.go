package exchange

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"sync"
)

// signer computes the interface's signature: HMAC-SHA256 keyed with the
// secret over the query text followed directly by the body text, written as
// lowercase hex. HMAC states are pooled so signing does not allocate.
type signer struct {
	pool sync.Pool
}

func newSigner(secret Secret) *signer {
	key := append([]byte(nil), secret.reveal()...)
	return &signer{pool: sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}}
}

// appendSignature appends the hex signature of query+body to dst.
func (s *signer) appendSignature(dst, query, body []byte) []byte {
	h := s.pool.Get().(hash.Hash)
	h.Reset()
	h.Write(query)
	h.Write(body)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	s.pool.Put(h)
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], sum[:])
	return append(dst, out[:]...)
}

// Sign returns the signature the interface expects for the given query text
// and body text (either may be empty).
func Sign(secret Secret, query, body string) string {
	return string(newSigner(secret).appendSignature(nil, []byte(query), []byte(body)))
}
