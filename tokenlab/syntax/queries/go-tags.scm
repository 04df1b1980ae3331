; Written for tokenlab. Tag-style captures for Go: functions, methods (named
; `Receiver.Method`: the optional @scope capture is the receiver's type name), struct
; and interface types with their method sets, and other named types.

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @scope
        (pointer_type (type_identifier) @scope)
        (generic_type type: (type_identifier) @scope)
        (pointer_type (generic_type type: (type_identifier) @scope))
      ]))
  name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec
  name: (type_identifier) @name
  type: [(type_identifier) (qualified_type) (function_type) (map_type) (slice_type)
         (array_type) (pointer_type) (channel_type) (generic_type)]) @definition.type
(method_elem name: (field_identifier) @name) @definition.method
