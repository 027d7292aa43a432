package api

// SetPasswordHasher replaces the server's password hashing (argon2id) with
// f, so that a test can count the hashes a request costs.
func SetPasswordHasher(s *Server, f func(password string) string) { s.hash = f }

// HashPassword is the server's password hashing.
var HashPassword = hashPassword
