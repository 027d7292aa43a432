package models

// OutboxTx returns the transaction of a store from InTx as an OutboxTx,
// for a change that writes notification jobs and an idempotency record in
// one transaction. A store that is not in a transaction gives an error.
func (s *Store) OutboxTx() (OutboxTx, error) {
	return s.outboxTx(s.db)
}
