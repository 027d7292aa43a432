package accounts

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/datamonsters/turns/refusal"
)

// Refusals of signing in and of the password.
var (
	ErrBadCredentials = refusal.New(refusal.Unauthorized, "bad_credentials", "unknown username or wrong password")
	ErrWrongPassword  = refusal.New(refusal.Forbidden, "wrong_password", "not the account's password")
	ErrPasswordMoved  = refusal.New(refusal.Conflict, "password_changed", "the password was changed meanwhile; log in again")
)

// Hash returns the hash of password to store (argon2id; see
// Config.Hash). It takes a while: hash before a transaction, not in it.
func (s *Service) Hash(password string) string { return s.cfg.Hash(password) }

// CreateUser creates the account u with the password hash (see Hash) and,
// if zone is not "", its time zone. A username taken is a refusal of kind
// Conflict, "username_taken". The caller has checked the fields (see
// ValidUsername, ValidEmail, ValidPassword, ValidZone) and counted the
// registration (CountRegistration).
func (s *Service) CreateUser(ctx context.Context, u *models.User, hash, zone string) error {
	var err error
	if zone == "" {
		err = s.store.CreateUser(ctx, u, hash)
	} else {
		err = s.store.InTx(ctx, func(tx *models.Store) error {
			if err := tx.CreateUser(ctx, u, hash); err != nil {
				return err
			}
			return tx.SetTimeZone(ctx, u.ID, zone)
		})
	}
	if errors.Is(err, models.ErrConflict) {
		return refusal.New(refusal.Conflict, "username_taken", "the username %q is taken", u.Username)
	}
	return err
}

// SignIn checks a sign-in to the account named username from client (see
// CountRegistration) with password. Attempts are counted per client
// address and per account, whatever the address, in the database, before
// the password is checked (LoginLimits), and a sign-in with the right
// password gives its attempts back: only failed ones count. An unknown
// username costs as long as a wrong password. It returns the user, or
// ErrBadCredentials, a *refusal.RateLimitError or the store's error, and
// how the buckets stand either way.
func (s *Service) SignIn(ctx context.Context, client, username, password string) (*models.User, Tally, error) {
	took, err := s.take(ctx, s.loginAttempts(client, username)...)
	if err != nil {
		return nil, took.tally, err
	}
	u, err := s.store.UserByUsername(ctx, username)
	hash := ""
	if err == nil {
		hash, err = s.store.PasswordHash(ctx, u.ID)
	}
	if err != nil && !errors.Is(err, models.ErrNotFound) {
		return nil, took.tally, err
	}
	if !s.matches(hash, password) {
		return nil, took.tally, ErrBadCredentials
	}
	return u, s.give(ctx, took), nil
}

// CheckPassword checks that password is the password of u, counted as a
// sign-in of the account from client is (see SignIn), before a change
// that asks for it (a new password, deleting the account). It returns the
// password's hash, or ErrWrongPassword, a *refusal.RateLimitError or the
// store's error, and how the buckets stand.
func (s *Service) CheckPassword(ctx context.Context, client string, u *models.User, password string) (string, Tally, error) {
	took, err := s.take(ctx, s.loginAttempts(client, u.Username)...)
	if err != nil {
		return "", took.tally, err
	}
	hash, err := s.store.PasswordHash(ctx, u.ID)
	if err != nil {
		return "", took.tally, err
	}
	if !s.matches(hash, password) {
		return "", took.tally, ErrWrongPassword
	}
	return hash, s.give(ctx, took), nil
}

// ChangePassword replaces the password of user userID, current, with
// next (ValidPassword, checked by the caller), once current is checked as
// CheckPassword does. The change ends every sign-in of the account but
// its personal API tokens (browser sessions, access and refresh tokens,
// on every replica at once), and the caller gets a new session. A change
// meanwhile is ErrPasswordMoved.
func (s *Service) ChangePassword(ctx context.Context, client string, userID int64, current, next string) (Session, Tally, error) {
	u, err := s.store.UserByID(ctx, userID)
	if err != nil {
		return Session{}, Tally{}, err
	}
	old, tally, err := s.CheckPassword(ctx, client, u, current)
	if err != nil {
		return Session{}, tally, err
	}
	hash := s.Hash(next)
	var out Session
	err = s.store.InTx(ctx, func(tx *models.Store) error {
		gen, err := tx.ChangePassword(ctx, u.ID, old, hash)
		if err != nil {
			return err
		}
		u.TokenGen = gen
		out, err = s.In(tx).StartSession(ctx, u)
		return err
	})
	if errors.Is(err, models.ErrConflict) {
		err = ErrPasswordMoved
	}
	return out, tally, err
}

// ResetAccounts counts a request to reset the password of who (a
// username, or an address: one with "@") from client, per client and per
// who from every client, so that nobody fills a mailbox with links; and
// returns the accounts a reset link goes to: the account of that name,
// or those that verified that address, and only with their address
// verified. None is no error.
func (s *Service) ResetAccounts(ctx context.Context, client, who string) ([]models.Account, error) {
	_, err := s.CountForm(ctx, "reset", client, "")
	if err == nil {
		_, err = s.CountForm(ctx, "reset", client, who)
	}
	if err != nil {
		return nil, err
	}
	if strings.Contains(who, "@") {
		return s.store.AccountsByVerifiedEmail(ctx, who)
	}
	u, err := s.store.UserByUsername(ctx, who)
	var a *models.Account
	if err == nil {
		a, err = s.store.AccountByID(ctx, u.ID)
	}
	switch {
	case errors.Is(err, models.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	case !a.Verified():
		return nil, nil
	}
	return []models.Account{*a}, nil
}

// PasswordBinding is what a password reset link of user userID is bound
// to: a fingerprint of the password it replaces, which makes the link
// single-use without storing anything (once used, or once the password
// changes otherwise, the link is void).
func (s *Service) PasswordBinding(ctx context.Context, userID int64) ([]byte, error) {
	hash, err := s.store.PasswordHash(ctx, userID)
	if err != nil {
		return nil, err
	}
	return fingerprint(hash), nil
}

// EmailBinding is what a verification link of a is bound to: the address
// it verifies, so that a change of address voids it.
func EmailBinding(a *models.Account) []byte { return []byte(a.Email) }

// ResetPassword sets the password of user userID to password
// (ValidPassword, checked by the caller), as a reset link allows, and
// ends every sign-in of the account but its personal API tokens. bound
// says whether the link is bound to a binding (PasswordBinding): it is
// asked of the password as it is, and the password is replaced only if it
// is still that one, so that a link posted twice at once, or after
// another reset, sets no second password (ErrLinkUsed).
func (s *Service) ResetPassword(ctx context.Context, userID int64, bound func(binding []byte) bool, password string) error {
	old, err := s.store.PasswordHash(ctx, userID)
	if err != nil {
		return err
	}
	if !bound(fingerprint(old)) {
		return ErrLinkUsed
	}
	err = s.store.ResetPassword(ctx, userID, old, s.Hash(password))
	if errors.Is(err, models.ErrConflict) {
		return ErrLinkUsed
	}
	return err
}

// VerifyEmail marks addr as the verified address of user userID, if it
// is still their address; models.ErrNotFound if not.
func (s *Service) VerifyEmail(ctx context.Context, userID int64, addr string) error {
	return s.store.VerifyEmail(ctx, userID, addr)
}

// Account is user userID's account, or models.ErrNotFound, also for a
// deleted account: an email's link to it (a sign-in, a reset) opens
// nothing.
func (s *Service) Account(ctx context.Context, userID int64) (*models.Account, error) {
	a, err := s.store.AccountByID(ctx, userID)
	if err == nil && a.Deleted() {
		return nil, fmt.Errorf("user %d is deleted: %w", userID, models.ErrNotFound)
	}
	return a, err
}

// gone says in the accounts' terms the store's refusal to start a
// sign-in of a deleted account (*models.UserGoneError): a sign-in whose
// password was checked just before the deletion ends as a request after
// it does.
func gone(err error) error {
	var g *models.UserGoneError
	if errors.As(err, &g) {
		return play.ErrAccountDeleted
	}
	return err
}

// Delete deletes the account of user userID: the player resigns every
// game in play, leaves the open ones and cancels those they created
// (play.Service.ResignAll), then everything the account holds is deleted
// and its name and address taken off (models.Store.DeleteAccount), and
// last ResignAll sweeps again: a game the user created, joined or was
// invited to while the first sweep ran. Once the account is deleted no
// change can seat it (models.UserGoneError), and one that seated it
// before has committed, so the second sweep sees every seat. Begun, it
// runs to its end even if ctx is cancelled. The caller has checked the
// password (CheckPassword).
func (s *Service) Delete(ctx context.Context, userID int64) error {
	ctx = context.WithoutCancel(ctx)
	if err := s.play.ResignAll(ctx, userID); err != nil {
		return err
	}
	if err := s.store.DeleteAccount(ctx, userID); err != nil {
		return err
	}
	return s.play.ResignAll(ctx, userID)
}
