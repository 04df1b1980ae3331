; Written for tokenlab. Tag-style captures for Rust: functions (methods when inside an
; impl or trait), function signatures in traits, structs, enums, unions, traits, impl
; blocks (named by the type they implement for), modules, macro_rules and type aliases.
; Outer attributes right before an item (`#[derive(…)]`, `#[test]`) are captured as
; @start (comments between them allowed) so the range begins with them, as a Python
; range begins with its decorators.

((attribute_item)* @start . [(line_comment) (block_comment)]* . (function_item name: (identifier) @name) @definition.function)
((attribute_item)* @start . [(line_comment) (block_comment)]* . (function_signature_item name: (identifier) @name) @definition.function)
((attribute_item)* @start . [(line_comment) (block_comment)]* . (struct_item name: (type_identifier) @name) @definition.struct)
((attribute_item)* @start . [(line_comment) (block_comment)]* . (enum_item name: (type_identifier) @name) @definition.enum)
((attribute_item)* @start . [(line_comment) (block_comment)]* . (union_item name: (type_identifier) @name) @definition.union)
((attribute_item)* @start . [(line_comment) (block_comment)]* . (trait_item name: (type_identifier) @name) @definition.trait)
((attribute_item)* @start . [(line_comment) (block_comment)]* . (mod_item name: (identifier) @name) @definition.module)
((attribute_item)* @start . [(line_comment) (block_comment)]* . (macro_definition name: (identifier) @name) @definition.macro)
((attribute_item)* @start . [(line_comment) (block_comment)]* . (type_item name: (type_identifier) @name) @definition.type)

((attribute_item)* @start . [(line_comment) (block_comment)]* . (impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]) @definition.impl)
