// Package bot plays Data Monsters games automatically. A Bot sees only what
// a seat may see, a *engine.View, and the seat's legal actions from
// engine.Legal; it never reads the engine.State. A prompt is one legal
// action without choices, and the bot picks an answer among its options.
// Random picks uniformly among the legal actions (and a random answer of a
// prompt, RandomAnswer); Greedy claims the most Big Data Points it can,
// builds toward the most valuable challenge within reach and answers
// prompts with simple card values. Play runs a whole game between bots;
// PlayLog also tells each action in words.
package bot
