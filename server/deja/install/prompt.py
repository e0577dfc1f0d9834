"""The `/deja` prompt Deja adds to Continue: its name and text, the same in `config.yaml`'s
`prompts` and a legacy `config.json`'s `customCommands`."""

PROMPT_NAME = "deja"
PROMPT_DESCRIPTION = "Search past Continue sessions with Deja"
# cn sends the prompt's text followed directly by what was typed after `/deja`: the blank line
# keeps the request apart.
PROMPT_TEXT = (
    "Use Deja's deja_search tool (and deja_file_history, deja_restore, deja_fix for an error or "
    "deja_files for the files of a topic, where they help) to "
    "find what past Continue sessions say about the request that follows. Answer from what "
    "Deja finds and name the sessions you used; if it finds nothing, say so.\n\n"
)
