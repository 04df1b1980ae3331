; Written for tokenlab. Tag-style captures for PHP: namespaces, classes, interfaces,
; traits, enums, functions and methods. Attributes (`#[…]`) belong to the declaration in
; this grammar, so ranges already begin with them.

(namespace_definition name: (namespace_name) @name) @definition.namespace
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
