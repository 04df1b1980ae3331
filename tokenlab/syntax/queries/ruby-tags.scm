; Written for tokenlab. Tag-style captures for Ruby: modules, classes (including
; `class A::B`), and methods: `def name`, `def self.name` and endless `def name = …`.
; Every `def` is a method in Ruby, top-level ones included.

(module name: (_) @name) @definition.module
(class name: (_) @name) @definition.class
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
