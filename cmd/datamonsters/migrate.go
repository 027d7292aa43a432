package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
)

// runMigrate applies the pending migrations to the configured database.
func runMigrate(args []string) int {
	fs := flag.NewFlagSet("migrate", flag.ExitOnError)
	fs.Parse(args)
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		fatal(err)
	}
	st, applied := openStore(context.Background(), cfg)
	defer st.Close()
	for _, name := range applied {
		fmt.Println("applied", name)
	}
	fmt.Printf("%s schema up to date (%d applied)\n", st.Dialect(), len(applied))
	return 0
}

// openStore opens the configured database and applies pending migrations,
// returning the store and the migrations applied; it exits on failure.
func openStore(ctx context.Context, cfg Config) (*models.Store, []string) {
	st, err := models.Open(ctx, cfg.DatabaseURL, cfg.DataDir, models.Options{})
	if err != nil {
		fatal(err)
	}
	applied, err := st.Migrate(ctx)
	if err == nil {
		err = notifier.MigrateRiver(ctx, st) // the job queue's own tables
	}
	if err != nil {
		st.Close()
		fatal(err)
	}
	return st, applied
}
