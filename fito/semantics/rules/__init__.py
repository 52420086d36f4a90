"""The rules of docs/semantics.md: symbolic steps of terms, and the models refused."""
