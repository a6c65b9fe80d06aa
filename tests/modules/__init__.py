"""Rule modules written only in the tests, to prove the extension points: a module registered
at test time works through the shared rules and bot with no change to them."""
