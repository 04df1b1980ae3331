; Written for tokenlab. Tag-style captures for C++: namespaces, classes, structs, unions
; and enums that have a body, function and method definitions (also out-of-class ones
; such as `ns::Box::set`, pointer/reference returns, operators, destructors), member and
; free function declarations, and function-like macros. A `template<…>` declaration is
; captured again with the same @name so the range starts at `template`.

(namespace_definition name: (_) @name) @definition.namespace
(class_specifier name: (_) @name body: (_)) @definition.class
(struct_specifier name: (_) @name body: (_)) @definition.struct
(union_specifier name: (_) @name body: (_)) @definition.union
(enum_specifier name: (_) @name body: (_)) @definition.enum
(type_definition type: (struct_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (class_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.class

(function_definition
  declarator: [
    (function_declarator declarator: (_) @name)
    (pointer_declarator declarator: (function_declarator declarator: (_) @name))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name)))
    (reference_declarator (function_declarator declarator: (_) @name))
  ]) @definition.function

(declaration
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier)
                                      (destructor_name) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))
    (reference_declarator (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))
  ]) @definition.function

(field_declaration
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier)
                                      (destructor_name) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))
    (reference_declarator (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))
  ]) @definition.function

(template_declaration [
  (class_specifier name: (_) @name body: (_))
  (struct_specifier name: (_) @name body: (_))
]) @definition.class
(template_declaration
  (function_definition
    declarator: [
      (function_declarator declarator: (_) @name)
      (pointer_declarator declarator: (function_declarator declarator: (_) @name))
      (reference_declarator (function_declarator declarator: (_) @name))
    ])) @definition.function
(template_declaration
  (declaration declarator: (function_declarator declarator: (_) @name))) @definition.function

(preproc_function_def name: (identifier) @name) @definition.macro
