; Written for tokenlab. Tag-style captures for Python: classes and functions (sync and
; async, at any depth). A decorated definition is captured twice with the same @name;
; the outliner keeps the wider node, so the range starts at the first decorator.
; Methods are functions whose nearest enclosing definition is a class.

(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

(decorated_definition
  definition: (class_definition
    name: (identifier) @name)) @definition.class

(decorated_definition
  definition: (function_definition
    name: (identifier) @name)) @definition.function
