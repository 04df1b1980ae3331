; Written for tokenlab. Tag-style captures for Bash (also used for sh, zsh and ksh
; scripts): function definitions, in both `name() { … }` and `function name { … }` form.

(function_definition name: (word) @name) @definition.function
