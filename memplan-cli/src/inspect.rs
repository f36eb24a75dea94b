//! `memplan inspect FIRMWARE.elf`: the plans read back from a built firmware, from the
//! descriptions the macro embeds in its `.memplan.info` section (not allocated: kept in
//! the ELF, never loaded).

use std::path::Path;

use memplan_lang::info::{self, PlanInfo};
use object::{Object, ObjectSection, SectionFlags};

/// The plans described in the ELF file `file`, in link order.
pub fn plans(file: &Path) -> Result<Vec<PlanInfo>, String> {
    let at = |e: &dyn std::fmt::Display| format!("{}: {e}", file.display());
    let bytes = std::fs::read(file).map_err(|e| at(&e))?;
    let elf = object::File::parse(&*bytes).map_err(|e| at(&e))?;
    let Some(section) = elf.section_by_name(info::SECTION) else {
        return Err(at(&format_args!(
            "no {} section: no memory_plan! is linked into it, or it is not an ELF firmware (the descriptions are emitted for ELF targets only)",
            info::SECTION
        )));
    };
    if let SectionFlags::Elf { sh_flags, .. } = section.flags()
        && sh_flags.contains(object::elf::SHF_ALLOC)
    {
        return Err(at(&format_args!(
            "its {} section is allocated (loaded into the device's memory): link it with memplan's fragment (memplan-build, or `memplan linker`), which keeps it out",
            info::SECTION
        )));
    }
    let data = section.data().map_err(|e| at(&e))?;
    PlanInfo::decode_all(data).map_err(|e| at(&format_args!("{}: {e}", info::SECTION)))
}

/// Prints the report of every plan in `file`.
pub fn run(file: &Path) -> Result<bool, String> {
    for plan in plans(file)? {
        print!("{}", plan.report());
    }
    Ok(true)
}
