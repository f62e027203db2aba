! A file read by cli_commands.tpz with topaz's input command (paths are relative to the including file).
doit
UserGlobals at: #IncludedValue put: 42
%
