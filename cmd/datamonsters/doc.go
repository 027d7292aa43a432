// Command datamonsters runs the Data Monsters turn service and its tools.
//
//	datamonsters serve      run the HTTP API (migrates the database first)
//	datamonsters migrate    apply pending database migrations and exit
//	datamonsters scenario   run a rules scenario file and print the result
//	datamonsters simulate   play bot games and print statistics
//	datamonsters replay     check a finished game against its revealed secret (docs/fairness.md)
//	datamonsters bench      measure the API over HTTP against the configured database
//
// Configuration comes from the environment; see .env.example.
package main
