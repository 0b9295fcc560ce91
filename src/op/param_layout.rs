//! How a kernel's parameters are declared once and spelled in every language. A `kernel_params!`
//! struct (see `op::params`) is a Rust struct of named words; the same declaration renders the
//! WGSL constants its shader reads the words by (`p(P_SHAPE + d)`) and the CUDA struct its
//! kernel takes by value (`P.shape[d]`), so no kernel reads a word by a number and no layout is
//! written twice. The words travel as one array: wgpu narrows them to u32 in its uniform slot,
//! CUDA widens them to u64 (sizes past 4 Gi elements index correctly there).

/// One named field of a parameter struct: a word, or an array of `len` words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Field {
    pub name: &'static str,
    pub len: usize,
    /// Whether the field is an array (`shape[8]`), even of one word.
    pub array: bool,
}

/// Most words one parameter struct holds: WGSL's uniform is 16 vec4s (see shaders::render).
pub(crate) const MAX_WORDS: usize = 64;

/// A kernel parameter struct, declared by `kernel_params!`.
pub(crate) trait KernelParams {
    /// The fields in the order their words travel.
    const FIELDS: &'static [Field];
    /// The words, in [`Self::FIELDS`]'s order.
    fn words(&self) -> Vec<usize>;
}

/// A field's words appended to the transport array (a word or an array of them).
pub(crate) trait PutWords {
    /// Appends the words.
    fn put(&self, out: &mut Vec<usize>);
}

impl PutWords for usize {
    #[inline]
    fn put(&self, out: &mut Vec<usize>) {
        out.push(*self);
    }
}

impl<const N: usize> PutWords for [usize; N] {
    #[inline]
    fn put(&self, out: &mut Vec<usize>) {
        out.extend_from_slice(self);
    }
}

/// Declares a kernel parameter struct: `name` is a word, `name[N]` an array of N words.
macro_rules! kernel_params {
    ($(
        $(#[$meta:meta])*
        struct $name:ident {
            $( $(#[$fmeta:meta])* $field:ident $([$len:literal])? ),* $(,)?
        }
    )*) => {$(
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub(crate) struct $name {
            $( $(#[$fmeta])* pub $field: kernel_params!(@ty $($len)?), )*
        }

        impl $crate::op::param_layout::KernelParams for $name {
            const FIELDS: &'static [$crate::op::param_layout::Field] = &[$(
                $crate::op::param_layout::Field {
                    name: stringify!($field),
                    len: kernel_params!(@len $($len)?),
                    array: kernel_params!(@array $($len)?),
                },
            )*];

            fn words(&self) -> Vec<usize> {
                use $crate::op::param_layout::PutWords;
                let mut out = Vec::with_capacity(Self::FIELDS.iter().map(|f| f.len).sum());
                $( self.$field.put(&mut out); )*
                out
            }
        }
    )*};
    (@ty) => { usize };
    (@ty $len:literal) => { [usize; $len] };
    (@len) => { 1 };
    (@len $len:literal) => { $len };
    (@array) => { false };
    (@array $len:literal) => { true };
}
pub(crate) use kernel_params;

/// The first word of each field.
fn offsets(fields: &[Field]) -> impl Iterator<Item = (&Field, usize)> {
    fields.iter().scan(0, |at, f| {
        let start = *at;
        *at += f.len;
        Some((f, start))
    })
}

/// The WGSL constants naming each field's first word (`const P_SHAPE: u32 = 4u;`), which the
/// shader reads through the prelude's `p(i)`.
pub(crate) fn wgsl_consts(fields: &[Field]) -> String {
    offsets(fields).map(|(f, at)| format!("const P_{}: u32 = {at}u;\n", f.name.to_uppercase())).collect()
}

/// The CUDA struct the kernel takes by value, of 64-bit words in the fields' order.
pub(crate) fn cuda_struct(fields: &[Field]) -> String {
    let body: String = fields
        .iter()
        .map(|f| match f.array {
            true => format!(" u64 {}[{}];", f.name, f.len),
            false => format!(" u64 {};", f.name),
        })
        .collect();
    format!("struct Params {{{body} }};\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    kernel_params! {
        /// A layout for the test.
        struct Sample {
            count,
            shape[3],
            flag,
        }
    }

    #[test]
    fn every_language_reads_each_field_at_the_word_rust_writes_it() {
        let s = Sample { count: 7, shape: [1, 2, 3], flag: 9 };
        assert_eq!(s.words(), [7, 1, 2, 3, 9]);
        assert_eq!(
            wgsl_consts(Sample::FIELDS),
            "const P_COUNT: u32 = 0u;\nconst P_SHAPE: u32 = 1u;\nconst P_FLAG: u32 = 4u;\n"
        );
        assert_eq!(cuda_struct(Sample::FIELDS), "struct Params { u64 count; u64 shape[3]; u64 flag; };\n");
    }
}
