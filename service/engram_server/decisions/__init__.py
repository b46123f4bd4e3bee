"""Decisions: the "why" memory of a codebase (pure domain, no I/O).

`extract` mines a commit into a decision draft (or says why it holds none),
`anchors` ties decisions to code and carries line ranges through later hunks,
`identity` gives decisions a sha-free identity, `answer` fuses the query legs
and renders the prompt-ready context.
"""
