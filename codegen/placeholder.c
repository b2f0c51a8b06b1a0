/* placeholder: removed once the folder has real sources */ typedef int tlc_placeholder_codegen;
