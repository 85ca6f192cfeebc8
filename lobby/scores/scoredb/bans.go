package scoredb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Ban is one row of the bans table (migration 2): a player's name or an address or CIDR
// (Network) kept out of the lobby, with a reason and an expiry (zero: never).
type Ban struct {
	ID      string
	Name    string
	Network string
	Reason  string
	Created time.Time
	Expires time.Time
}

// AddBan stores b (its ID is given when empty) and returns it as stored.
func (s *Store) AddBan(ctx context.Context, b Ban) (Ban, error) {
	if (b.Name == "") == (b.Network == "") {
		return Ban{}, errors.New("scores: a ban names a player or a network, one of the two")
	}
	if b.ID == "" {
		b.ID = uuid.NewString()
	}
	if b.Created.IsZero() {
		b.Created = time.Now()
	}
	var exp int64
	if !b.Expires.IsZero() {
		exp = b.Expires.UnixMilli()
	}
	_, err := s.db.ExecContext(ctx, s.dialect.rebind(`INSERT INTO bans (id, name, network, reason, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`),
		b.ID, b.Name, b.Network, b.Reason, b.Created.UnixMilli(), exp)
	if err != nil {
		return Ban{}, fmt.Errorf("scores: add ban: %w", err)
	}
	b.Created = time.UnixMilli(b.Created.UnixMilli()).UTC()
	if exp != 0 {
		b.Expires = time.UnixMilli(exp).UTC()
	}
	return b, nil
}

// RemoveBans removes the bans whose id, name (case-insensitive) or network is key, and returns
// how many it removed.
func (s *Store) RemoveBans(ctx context.Context, key string) (int64, error) {
	if key == "" {
		return 0, errors.New("scores: remove bans: no id, name or network given")
	}
	res, err := s.db.ExecContext(ctx, s.dialect.rebind(`DELETE FROM bans WHERE id = ? OR (name <> '' AND LOWER(name) = ?) OR (network <> '' AND network = ?)`),
		key, strings.ToLower(key), key)
	if err != nil {
		return 0, fmt.Errorf("scores: remove bans: %w", err)
	}
	return res.RowsAffected()
}

// Bans returns the bans in force at now (expired ones are left out and deleted), the oldest
// first.
func (s *Store) Bans(ctx context.Context, now time.Time) ([]Ban, error) {
	ms := now.UnixMilli()
	if _, err := s.db.ExecContext(ctx, s.dialect.rebind(`DELETE FROM bans WHERE expires_at <> 0 AND expires_at <= ?`), ms); err != nil {
		return nil, fmt.Errorf("scores: bans: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, name, network, reason, created_at, expires_at FROM bans ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("scores: bans: %w", err)
	}
	defer rows.Close()
	var out []Ban
	for rows.Next() {
		var b Ban
		var created, exp int64
		if err := rows.Scan(&b.ID, &b.Name, &b.Network, &b.Reason, &created, &exp); err != nil {
			return nil, fmt.Errorf("scores: bans: %w", err)
		}
		b.Created = time.UnixMilli(created).UTC()
		if exp != 0 {
			b.Expires = time.UnixMilli(exp).UTC()
		}
		out = append(out, b)
	}
	return out, rows.Err()
}
