; Written for tokenlab. Tag-style captures for TypeScript and TSX (one file serves both
; grammars): everything the JavaScript query captures, plus abstract classes, interfaces
; and their method signatures, type aliases, enums, namespaces, ambient modules and
; overload signatures. `export` and `declare` forms are captured again with the same
; @name so the range includes the keyword and any decorators before it.

(class_declaration name: (_) @name) @definition.class
(abstract_class_declaration name: (_) @name) @definition.class
(class name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name) @definition.enum
(internal_module name: (_) @name) @definition.namespace
(module name: (_) @name) @definition.module

(function_declaration name: (_) @name) @definition.function
(generator_function_declaration name: (_) @name) @definition.function
(function_signature name: (_) @name) @definition.function
(method_definition name: (_) @name) @definition.method
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(public_field_definition
  name: (_) @name
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
(export_statement declaration: (abstract_class_declaration name: (_) @name)) @definition.class
(export_statement declaration: (interface_declaration name: (_) @name)) @definition.interface
(export_statement declaration: (type_alias_declaration name: (_) @name)) @definition.type
(export_statement declaration: (enum_declaration name: (_) @name)) @definition.enum
(export_statement declaration: (function_declaration name: (_) @name)) @definition.function
(export_statement declaration: (generator_function_declaration name: (_) @name)) @definition.function
(export_statement declaration: (function_signature name: (_) @name)) @definition.function
(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]))) @definition.function
(ambient_declaration (module name: (_) @name)) @definition.module
(ambient_declaration (function_signature name: (_) @name)) @definition.function
(ambient_declaration (class_declaration name: (_) @name)) @definition.class
(ambient_declaration (interface_declaration name: (_) @name)) @definition.interface
