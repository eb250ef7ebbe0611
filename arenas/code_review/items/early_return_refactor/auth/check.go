package auth

import "errors"

var ErrLocked = errors.New("account locked")
var ErrBadPassword = errors.New("bad password")

// Check verifies a login attempt.
func Check(acct *Account, password string) error {
	if acct.Locked {
		return ErrLocked
	}
	if !acct.Matches(password) {
		acct.Failures++
		if acct.Failures >= 5 {
			acct.Locked = true
		}
		return ErrBadPassword
	}
	acct.Failures = 0
	return nil
}
