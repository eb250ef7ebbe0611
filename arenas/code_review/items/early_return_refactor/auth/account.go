package auth

import "crypto/subtle"

type Account struct {
	Hash     []byte
	Failures int
	Locked   bool
}

func (a *Account) Matches(password string) bool {
	return subtle.ConstantTimeCompare(hash(password), a.Hash) == 1
}
