"""The Night Watch's routers: the wizard's steps (reached from the shared wizard), the GM's
duel steps and "-1" tokens, the players' duel screens."""
