//! The op manifest's declaration form. Each elementwise family (`unary`, `binary`, `reduce`)
//! writes its ops once, in a table macro (`unary_table!`, ...) that hands the list to a
//! generator: [`op_enum!`] here makes the enum, its `ALL` and `INTERNAL` lists and `name()`
//! from it, and `ops/` makes the `Tensor` methods from the same list. `ALL` therefore names
//! every public variant by construction, and a new op is one line of its family's table (plus
//! its semantics, which the compiler asks for: the per-dtype matches have no `_ =>` arm). The
//! manifest built from these lists (`op::manifest`) feeds the JS op table, the `.d.ts` check,
//! the fuzz and the generated op reference.

/// Declares an op family from its table: the enum (the table's docs on each variant), `ALL`
/// (the public entries, in table order), `INTERNAL` (entries the backward rules use, hidden
/// from the op tables and the JS surface), `name()` (the method's name, which is the op's
/// name everywhere: errors, logs, JS, the op table) and `from_name()`.
///
/// An entry is `Variant => method` and may carry `(tokens)` for the `Tensor` method generator
/// (a scalar form's name, or `custom` where the method is written by hand).
macro_rules! op_enum {
    (@custom (custom)) => { true };
    (@custom $($other:tt)*) => { false };
    (
        $(#[$meta:meta])*
        $Name:ident;
        $( $(#[doc = $vdoc:literal])* $Variant:ident => $method:ident $(($($extra:tt)*))?, )*
        ;
        $( $(#[doc = $idoc:literal])* $IVariant:ident => $iname:ident, )*
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $Name {
            $( $(#[doc = $vdoc])* $Variant, )*
            $( $(#[doc = $idoc])* #[doc(hidden)] $IVariant, )*
        }

        impl $Name {
            /// Every op of the family that users call, in table order (generated from the
            /// table, so it names every public variant).
            pub const ALL: [$Name; <[&str]>::len(&[$(stringify!($Variant)),*])] = [$($Name::$Variant),*];

            /// The ops the backward rules use beside `ALL` (derivatives); every kernel variant
            /// is built and tested for them too.
            #[doc(hidden)]
            pub const INTERNAL: [$Name; <[&str]>::len(&[$(stringify!($IVariant)),*])] = [$($Name::$IVariant),*];

            /// The op's name, as errors, logs, the JS API (in camelCase) and the op reference
            /// spell it.
            pub fn name(self) -> &'static str {
                match self {
                    $( $Name::$Variant => stringify!($method), )*
                    $( $Name::$IVariant => stringify!($iname), )*
                }
            }

            /// The op's documentation, as its table writes it (the generated op reference
            /// prints it).
            pub fn doc(self) -> &'static str {
                match self {
                    $( $Name::$Variant => concat!($($vdoc, "\n"),*), )*
                    $( $Name::$IVariant => concat!($($idoc, "\n"),*), )*
                }
            }

            /// Whether the op's `Tensor` method is written by hand, taking arguments beside the
            /// operands (`elu(alpha)`, `prelu(weight)`), rather than generated from the table.
            pub fn custom_method(self) -> bool {
                match self {
                    $( $Name::$Variant => op_enum!(@custom $(($($extra)*))?), )*
                    $( $Name::$IVariant => true, )*
                }
            }

            /// The public op called `name` (as [`Self::name`] spells it), if there is one.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::ALL.into_iter().find(|op| op.name() == name)
            }
        }
    };
}
pub(crate) use op_enum;
