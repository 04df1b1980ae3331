; Written for tokenlab. Tag-style captures for JavaScript (and JSX): classes, functions,
; generators, methods, class fields and variables holding a function or class, and
; functions assigned to members (`Foo.prototype.bar = function…`, `exports.x = …`).
; `export` forms are captured again with the same @name so the range includes `export`.

(class_declaration name: (_) @name) @definition.class
(class name: (_) @name) @definition.class
(function_declaration name: (_) @name) @definition.function
(generator_function_declaration name: (_) @name) @definition.function
(method_definition name: (_) @name) @definition.method
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(lexical_declaration
  (variable_declarator name: (identifier) @name value: (class))) @definition.class

(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

(export_statement declaration: (class_declaration name: (_) @name)) @definition.class
(export_statement declaration: (function_declaration name: (_) @name)) @definition.function
(export_statement declaration: (generator_function_declaration name: (_) @name)) @definition.function
(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]))) @definition.function
